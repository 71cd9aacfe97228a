/**
 * What an endpoint's declaration names for its OpenAPI operation (contract/endpoints/), as the
 * document's parts: the success body's schema per version shape, the query parameters, the
 * bodies besides the registry's JSON versions, the success headers. Kept here, not in the
 * declaration, because the parameters are made from zod schemas the CLI must not load at start.
 */
import type { OpenApiMeta } from '../../contract/endpoints/index.js';
import { pageQuerySchema, userListQuerySchema } from '../../contract/schemas.js';
import type { Shape } from '../../contract/versions.js';
import { FORM_TYPES } from '../http/negotiation.js';
import type { Json } from './openapi-components.js';
import { ref, userName } from './openapi-components.js';
import { EVENT_PARAMETERS } from './openapi-events.js';
import { queryParameters } from './openapi-parameters.js';

/** The success body's schema for a response shape; null: the answer has no body. */
export function successBody(body: OpenApiMeta['body'], shape: Shape): Json | null {
  if (body === null) return null;
  if ('schema' in body) return ref('schemas', body.schema);
  return ref('schemas', `${userName(shape)}${body.user === 'page' ? 'Page' : ''}`);
}

const QUERIES: Record<NonNullable<OpenApiMeta['query']>, () => Json[]> = {
  userList: () => queryParameters(userListQuerySchema),
  page: () => queryParameters(pageQuerySchema),
  events: () => EVENT_PARAMETERS,
};

export const queryOf = (meta: OpenApiMeta): Json[] => (meta.query ? QUERIES[meta.query]() : []);

/** The success answer's headers a declaration names, besides X-Request-Id. */
export const headersOf = (meta: OpenApiMeta): Record<string, Json> =>
  Object.fromEntries((meta.headers ?? []).map((name) => [name, ref('headers', name)]));

const UPLOAD: Json = {
  'multipart/form-data': {
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        metaData: ref('schemas', 'MediaMetaData'),
        file: {
          type: 'string',
          contentMediaType: 'application/octet-stream',
          description: 'The file; its name is kept (sanitised)',
        },
      },
    },
    encoding: { metaData: { contentType: 'application/json' } },
  },
};

/**
 * Request bodies besides the registry's JSON versions: an upload, plain JSON, or forms (their
 * fields: UserForm).
 */
export function moreBodiesOf(meta: OpenApiMeta, forms = false): Json | undefined {
  if (meta.upload) return UPLOAD;
  if (meta.jsonBody) return { 'application/json': { schema: ref('schemas', meta.jsonBody) } };
  if (forms)
    return Object.fromEntries(FORM_TYPES.map((t) => [t, { schema: ref('schemas', 'UserForm') }]));
  return undefined;
}

export const PATH_PARAMETERS: Record<string, Json> = {
  userId: {
    name: 'userId',
    in: 'path',
    required: true,
    description: 'The user’s id, or else its externalId',
    schema: { type: 'string', minLength: 1 },
  },
  mediumID: {
    name: 'mediumID',
    in: 'path',
    required: true,
    description: 'The medium’s id',
    schema: { type: 'string', minLength: 1 },
  },
  webhookId: {
    name: 'webhookId',
    in: 'path',
    required: true,
    description: 'The webhook’s id',
    schema: { type: 'string', minLength: 1 },
  },
  deliveryId: {
    name: 'deliveryId',
    in: 'path',
    required: true,
    description: 'The delivery’s id (one of GET /webhooks/{webhookId}/deliveries)',
    schema: { type: 'string', minLength: 1 },
  },
};
