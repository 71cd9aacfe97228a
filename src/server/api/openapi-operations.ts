/**
 * What the registry does not say about an operation: its id, summary, success status, query,
 * body schema names and the errors it can answer. Media types come from the registry
 * (openapi.ts); a registry endpoint missing here fails the document's generation and its test.
 */
import type { ErrorKind } from '../../contract/errors.js';
import { pageQuerySchema, userListQuerySchema } from '../../contract/schemas.js';
import type { Endpoint, Method, Shape } from '../../contract/versions.js';
import { FORM_TYPES } from '../http/negotiation.js';
import type { Json } from './openapi-components.js';
import { ref, userName } from './openapi-components.js';
import { EVENT_PARAMETERS } from './openapi-events.js';
import { queryParameters } from './openapi-parameters.js';

export interface OperationMeta {
  operationId: string;
  summary: string;
  description?: string;
  tag: 'Users' | 'Media' | 'Events' | 'Service' | 'CDN';
  success: '200' | '201' | '202' | '204';
  /** The success body's schema for a response shape; null: the answer has no body. */
  body: (shape: Shape) => Json | null;
  parameters?: Json[];
  errors: ErrorKind[];
  /** Request bodies besides the registry's JSON versions (forms, uploads). */
  moreBodies?: Record<string, Json>;
  /** Headers of the success answer besides X-Request-Id. */
  headers?: Record<string, Json>;
}

/** Every authenticated, negotiated API operation can answer these. */
const API: ErrorKind[] = ['notLoggedIn', 'notAcceptable', 'tooManyRequests', 'internal'];
const UNAVAILABLE: ErrorKind[] = ['serviceUnavailable'];
/** What reading a request body can add. */
const BODY: ErrorKind[] = [
  'validation',
  'requestTimeout',
  'payloadTooLarge',
  'unsupportedMediaType',
  'insufficientStorage',
];

const location = { Location: ref('headers', 'Location') };
const user = (shape: Shape) => ref('schemas', userName(shape));
const none = () => null;

export const REGISTRY_OPERATIONS: Partial<Record<`${Method} ${Endpoint}`, OperationMeta>> = {
  'GET /users': {
    operationId: 'listUsers',
    summary: 'List the branch’s users',
    description:
      'Sorted by `sort`, filtered by `status` and the free-text `query`; paged by `limit` and `offset`, or by `after` (the previous page’s `next` cursor, bound to its sort, status and query; deep pages cost as the first).',
    tag: 'Users',
    success: '200',
    body: (shape) => ref('schemas', `${userName(shape)}Page`),
    headers: { Link: ref('headers', 'Link') },
    parameters: queryParameters(userListQuerySchema),
    errors: [...API, 'validation', 'accessDenied', ...UNAVAILABLE],
  },
  'POST /users': {
    operationId: 'createUser',
    summary: 'Invite or create a user',
    description:
      'With `secret` the user is activated, else pending; an invitation is mailed unless `sendMail` is false.',
    tag: 'Users',
    success: '201',
    body: user,
    headers: location,
    errors: [...API, ...BODY, 'conflict', ...UNAVAILABLE],
  },
  'GET /users/{userId}': {
    operationId: 'getUser',
    summary: 'Read a user',
    tag: 'Users',
    success: '200',
    body: user,
    errors: [...API, 'accessDenied', 'notFound', ...UNAVAILABLE],
  },
  'PUT /users/{userId}': {
    operationId: 'updateUser',
    summary: 'Update a user incrementally',
    description: 'Absent fields stay as they are; `null` clears an optional field.',
    tag: 'Users',
    success: '200',
    body: user,
    moreBodies: Object.fromEntries(
      FORM_TYPES.map((t) => [t, { schema: ref('schemas', 'UserForm') }]),
    ),
    errors: [...API, ...BODY, 'notFound', 'conflict', ...UNAVAILABLE],
  },
  'DELETE /users/{userId}': {
    operationId: 'deleteUser',
    summary: 'Remove a user',
    description: 'The user becomes `deleted`: 404 from then on, gone from lists, externalId free.',
    tag: 'Users',
    success: '202',
    body: none,
    errors: [...API, 'accessDenied', 'notFound', ...UNAVAILABLE],
  },
  'GET /events': {
    operationId: 'listEvents',
    summary: 'List or follow the branch’s events, oldest first',
    description:
      'Every change, in sequence order; `next` continues (always given), `wait` long-polls. A follower passing `next` never misses or repeats an event (docs/events.md).',
    tag: 'Events',
    success: '200',
    body: () => ref('schemas', 'EventPage'),
    headers: { Link: ref('headers', 'Link') },
    parameters: EVENT_PARAMETERS,
    errors: [...API, 'validation', 'accessDenied', ...UNAVAILABLE],
  },
  'GET /media': {
    operationId: 'listMedia',
    summary: 'List the branch’s media, newest first',
    tag: 'Media',
    success: '200',
    body: () => ref('schemas', 'MediumPage'),
    parameters: queryParameters(pageQuerySchema),
    errors: [...API, 'validation', ...UNAVAILABLE],
  },
  'POST /media': {
    operationId: 'uploadMedium',
    summary: 'Upload a file',
    description:
      'multipart/form-data with a `file` part and an optional `metaData` part (`{"type": …}`, a hint: the bytes decide). A preview is made where one can be.',
    tag: 'Media',
    success: '200',
    body: () => ref('schemas', 'Medium'),
    moreBodies: {
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
    },
    errors: [...API, ...BODY, ...UNAVAILABLE],
  },
  'GET /media/{mediumID}': {
    operationId: 'getMedium',
    summary: 'Read a medium',
    tag: 'Media',
    success: '200',
    body: () => ref('schemas', 'Medium'),
    errors: [...API, 'notFound', ...UNAVAILABLE],
  },
  'DELETE /media/{mediumID}': {
    operationId: 'deleteMedium',
    summary: 'Delete a medium and its files',
    tag: 'Media',
    success: '204',
    body: none,
    errors: [...API, 'accessDenied', 'notFound', ...UNAVAILABLE],
  },
};

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
};
