/**
 * The discovery documents (RFC 7644 §4, RFC 7643 §5–7): what this endpoint supports, its one
 * resource type, and the User schemas, derived from the attribute map. No Groups here.
 */
import {
  CORE_USER,
  ENTERPRISE_USER,
  MAX_VALUES,
  type MappedField,
  ROSTER_USER,
  SCIM_FIELDS,
} from './attributes.js';
import { MAX_OPERATIONS } from './patch.js';

export const MAX_RESULTS = 1000;
const SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    // RFC 7643 §5 gives patch `supported` only; the caps are said beside it, as bulk says its
    // own (an IdP batching changes reads maxOperations; more is 400 tooMany).
    patch: { supported: true, maxOperations: MAX_OPERATIONS, maxValues: MAX_VALUES },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: 'A Roster API token (`roster tokens create --for scim`) as a bearer token',
        primary: true,
      },
      {
        type: 'httpbasic',
        name: 'HTTP Basic',
        description: 'The same token as the REST API takes it: Authorization: Basic <token>',
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function userResourceType(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A user of the branch the token was created for',
    schema: CORE_USER,
    schemaExtensions: [
      { schema: ENTERPRISE_USER, required: false },
      { schema: ROSTER_USER, required: false },
    ],
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
  };
}

const attribute = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

/** The attributes of one schema, grouped as the map's paths nest them. */
function attributesOf(fields: readonly MappedField[]) {
  const out: ReturnType<typeof attribute>[] = [];
  const complex = new Map<string, { subs: Set<string>; types: Set<string> }>();
  for (const { field, path } of fields) {
    if (!path.sub) {
      out.push(
        attribute(path.attr, {
          ...(field.identity
            ? { uniqueness: 'server', caseExact: field.identity === 'caseExact' }
            : {}),
          ...(field.name === 'userName' ? { required: true } : {}),
          ...(field.read ? {} : { mutability: 'writeOnly', returned: 'never' }),
        }),
      );
      continue;
    }
    const entry = complex.get(path.attr) ?? { subs: new Set(), types: new Set() };
    entry.subs.add(path.sub);
    if (path.type) entry.types.add(path.type);
    complex.set(path.attr, entry);
  }
  for (const [name, { subs, types }] of complex) {
    const subAttributes = [...subs].map((s) => attribute(s));
    if (types.size > 0) {
      subAttributes.push(attribute('type', { canonicalValues: [...types] }));
      if (name === 'emails') subAttributes.push(attribute('primary', { type: 'boolean' }));
    }
    out.push(attribute(name, { type: 'complex', multiValued: types.size > 0, subAttributes }));
  }
  return out;
}

export function userSchemas(base: string) {
  const core = SCIM_FIELDS.filter((m) => !m.path.urn && m.path.attr !== 'externalId');
  const enterprise = SCIM_FIELDS.filter((m) => m.path.urn === ENTERPRISE_USER);
  const doc = (id: string, name: string, description: string, attributes: unknown[]) => ({
    schemas: [SCHEMA],
    id,
    name,
    description,
    attributes,
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  });
  return [
    doc(CORE_USER, 'User', 'User account', [
      ...attributesOf(core),
      attribute('active', { type: 'boolean' }),
    ]),
    doc(ENTERPRISE_USER, 'EnterpriseUser', 'Enterprise user', attributesOf(enterprise)),
    doc(
      ROSTER_USER,
      'RosterUser',
      "The user's custom profile fields: one string attribute per field id (letters, digits, _ and -)",
      [],
    ),
  ];
}
