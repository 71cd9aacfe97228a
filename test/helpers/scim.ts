/** SCIM requests to a test server: bearer token, SCIM's media type, JSON in and out. */
import type { TestServer } from './server.js';

export const SCIM_TYPE = 'application/scim+json';
export const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const ROSTER_EXT = 'urn:roster:params:scim:schemas:extension:roster:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

export function scimClient(server: TestServer, token = server.adminToken) {
  return (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    server.req(method, `/scim/v2${path}`, {
      token: null,
      headers: {
        authorization: `Bearer ${token}`,
        accept: SCIM_TYPE,
        ...(body === undefined ? {} : { 'content-type': SCIM_TYPE }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
}

/** A SCIM User as an identity provider creates one. */
export const scimUser = (n: string | number, extra: Record<string, unknown> = {}) => ({
  schemas: [CORE_USER],
  externalId: `ext-${n}`,
  userName: `user${n}@example.com`,
  name: { givenName: `Given${n}`, familyName: `Family${n}` },
  emails: [{ value: `user${n}@example.com`, type: 'work', primary: true }],
  active: true,
  ...extra,
});
export const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
