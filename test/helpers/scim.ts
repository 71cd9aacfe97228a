/** SCIM requests to a test server: bearer token, SCIM's media type, JSON in and out. */
import { expect } from 'vitest';
import { SCOPES } from '../../src/contract/scopes.js';
import type { TestServer } from './server.js';

export const SCIM_TYPE = 'application/scim+json';
export const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const ROSTER_EXT = 'urn:roster:params:scim:schemas:extension:roster:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/**
 * Requests with `token`, or else with a token made for SCIM (every scope, the server's main
 * branch), made on first use: the admin token is a REST token, which /scim refuses.
 */
export function scimClient(server: TestServer, token?: string) {
  let scimToken: Promise<string> | undefined;
  const bearer = () => {
    if (token !== undefined) return token;
    scimToken ??= server.token({ scopes: [...SCOPES], channels: ['scim'] });
    return scimToken;
  };
  return async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    server.req(method, `/scim/v2${path}`, {
      token: null,
      headers: {
        authorization: `Bearer ${await bearer()}`,
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

/** A PATCH body of these operations. */
export const patchOps = (...Operations: unknown[]) => ({ schemas: [PATCH_OP], Operations });

/** A SCIM error answer of `status` (and, when given, that scimType). */
export function expectScimError(
  res: { status: number; json: any },
  status: number,
  scimType?: string,
) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(res.json.schemas).toEqual([ERROR]);
  if (scimType) expect(res.json.scimType).toBe(scimType);
}
