/**
 * The SCIM 2.0 routes in the OpenAPI document (/scim/v2, outside the document's /api base).
 * The User schema's attributes come from the same map the routes use (server/scim/attributes).
 */
import { SCIM_BASE_PATH } from '../../contract/scim.js';
import {
  CORE_USER,
  ENTERPRISE_USER,
  LIST_RESPONSE,
  PATCH_OP,
  ROSTER_USER,
  SCIM_FIELDS,
  SEARCH_REQUEST,
} from '../scim/attributes.js';
import { type Json, ref } from './openapi-components.js';

const SCIM = 'application/scim+json';
const body = (schema: Json) => ({
  [SCIM]: { schema },
  'application/json': { schema },
});
const requestId = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
const str = { type: 'string' };
const scimError = (description: string) => ({
  description,
  headers: requestId,
  content: body(ref('schemas', 'ScimError')),
});
/** Every failure is the SCIM Error resource (RFC 7644 §3.12). */
export const SCIM_ERRORS = {
  '4XX': scimError('A client error, in the SCIM Error schema'),
  '5XX': scimError('A server error, in the SCIM Error schema'),
};
const etag = { ETag: { description: 'W/"<version>": the user’s version counter', schema: str } };
const ifMatch = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'Apply only to this version (an ETag); 412 otherwise',
  schema: str,
};
const idParam = { name: 'id', in: 'path', required: true, schema: str };
const user = (description: string, status = '200', headers: Json = {}) => ({
  [status]: {
    description,
    headers: { ...requestId, ...etag, ...headers },
    content: body(ref('schemas', 'ScimUser')),
  },
});
const list = (items: Json) => ({
  type: 'object',
  required: ['schemas', 'totalResults', 'startIndex', 'itemsPerPage', 'Resources'],
  properties: {
    schemas: { type: 'array', items: { const: LIST_RESPONSE } },
    totalResults: { type: 'integer' },
    startIndex: { type: 'integer' },
    itemsPerPage: { type: 'integer' },
    Resources: { type: 'array', items },
  },
});
const op = (operationId: string, summary: string, responses: Json, more: Json = {}) => ({
  operationId,
  summary,
  tags: ['SCIM'],
  security: [{ bearerToken: [] }, { apiToken: [] }],
  ...more,
  responses: { ...responses, ...SCIM_ERRORS },
});
const discovery = (operationId: string, summary: string) =>
  op(operationId, summary, {
    '200': { description: summary, headers: requestId, content: body({ type: 'object' }) },
  });

/** A SCIM User's properties, nested as the map's paths nest them. */
function userSchema(): Json {
  const core: Record<string, Json> = {};
  const enterprise: Record<string, Json> = {};
  for (const { path, field } of SCIM_FIELDS) {
    const holder = path.urn === ENTERPRISE_USER ? enterprise : core;
    const leaf = field.read ? str : { type: 'string', writeOnly: true };
    if (!path.sub) {
      holder[path.attr] = leaf;
    } else if (path.type) {
      holder[path.attr] ??= {
        type: 'array',
        items: { type: 'object', properties: { type: str } },
      };
      const entry = holder[path.attr] as { items: { properties: Record<string, Json> } };
      entry.items.properties[path.sub] = str;
    } else {
      holder[path.attr] ??= { type: 'object', properties: {} };
      const inner = holder[path.attr] as { properties: Record<string, Json> };
      inner.properties[path.sub] = str;
    }
  }
  return {
    type: 'object',
    description: `A user as SCIM 2.0 carries it (${CORE_USER}); unknown attributes are ignored`,
    properties: {
      schemas: { type: 'array', items: str },
      id: { type: 'string', readOnly: true },
      ...core,
      active: { type: ['boolean', 'string'], description: 'Entra ID’s "True"/"False" accepted' },
      [ENTERPRISE_USER]: { type: 'object', properties: enterprise },
      [ROSTER_USER]: {
        type: 'object',
        description: 'Custom profile fields by id',
        additionalProperties: str,
      },
      meta: {
        type: 'object',
        readOnly: true,
        properties: {
          resourceType: str,
          created: str,
          lastModified: str,
          location: str,
          version: str,
        },
      },
    },
  };
}

export const SCIM_SCHEMAS: Record<string, Json> = {
  ScimUser: userSchema(),
  ScimUserList: list(ref('schemas', 'ScimUser')),
  ScimError: {
    type: 'object',
    required: ['schemas', 'status', 'detail'],
    properties: {
      schemas: { type: 'array', items: { const: 'urn:ietf:params:scim:api:messages:2.0:Error' } },
      status: { type: 'string', description: 'The HTTP status, as a string' },
      scimType: str,
      detail: str,
    },
  },
  ScimPatchOp: {
    type: 'object',
    required: ['schemas', 'Operations'],
    properties: {
      schemas: { type: 'array', items: { const: PATCH_OP } },
      Operations: {
        type: 'array',
        items: {
          type: 'object',
          required: ['op'],
          properties: {
            op: { type: 'string', description: 'add, replace or remove (any case)' },
            path: str,
            value: {},
          },
        },
      },
    },
  },
  ScimSearchRequest: {
    type: 'object',
    required: ['schemas'],
    properties: {
      schemas: { type: 'array', items: { const: SEARCH_REQUEST } },
      filter: str,
      startIndex: { type: 'integer' },
      count: { type: 'integer' },
    },
  },
};

const query = (name: string, description: string, schema: Json) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const listParameters = [
  query(
    'filter',
    'A SCIM filter (RFC 7644 §3.4.2.2) on userName, externalId, emails, name, active, meta.lastModified…',
    str,
  ),
  query('startIndex', '1-based index of the first result (default 1)', { type: 'integer' }),
  query('count', 'Results per page, 0 to 1000 (default 100; 0: the total alone)', {
    type: 'integer',
  }),
];
const listAnswer = {
  '200': {
    description: 'A page of users',
    headers: requestId,
    content: body(ref('schemas', 'ScimUserList')),
  },
};

/** Path items by path (each carries its own server: `/`). */
export const SCIM_PATHS: Record<string, Json> = {
  [`${SCIM_BASE_PATH}/ServiceProviderConfig`]: {
    get: discovery('scimServiceProviderConfig', 'What this SCIM endpoint supports'),
  },
  [`${SCIM_BASE_PATH}/ResourceTypes`]: {
    get: discovery('scimResourceTypes', 'The resource types (User only)'),
  },
  [`${SCIM_BASE_PATH}/Schemas`]: {
    get: discovery('scimSchemas', 'The User schemas: core, enterprise, Roster (custom fields)'),
  },
  [`${SCIM_BASE_PATH}/Users`]: {
    get: op('scimListUsers', 'List or filter users', listAnswer, { parameters: listParameters }),
    post: op(
      'scimCreateUser',
      'Create a user (externalId required)',
      user('Created', '201', { Location: { schema: str } }),
      {
        requestBody: { required: true, content: body(ref('schemas', 'ScimUser')) },
      },
    ),
  },
  [`${SCIM_BASE_PATH}/Users/.search`]: {
    post: op('scimSearchUsers', 'Filter users with a SearchRequest body', listAnswer, {
      requestBody: { required: true, content: body(ref('schemas', 'ScimSearchRequest')) },
    }),
  },
  [`${SCIM_BASE_PATH}/Users/{id}`]: {
    get: op('scimGetUser', 'A user', user('The user'), { parameters: [idParam] }),
    put: op(
      'scimReplaceUser',
      'Replace a user (attributes left out are cleared)',
      user('The user'),
      {
        parameters: [idParam, ifMatch],
        requestBody: { required: true, content: body(ref('schemas', 'ScimUser')) },
      },
    ),
    patch: op('scimPatchUser', 'Change a user with PatchOp operations', user('The user'), {
      parameters: [idParam, ifMatch],
      requestBody: { required: true, content: body(ref('schemas', 'ScimPatchOp')) },
    }),
    delete: op(
      'scimDeleteUser',
      'Remove a user',
      { '204': { description: 'Removed', headers: requestId } },
      {
        parameters: [idParam, ifMatch],
      },
    ),
  },
};
