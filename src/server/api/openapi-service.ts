/**
 * The operations outside the version registry: discovery (`GET /api`, this document), the
 * token's branch, the health checks and the files under /cdn. Paths outside `/api` carry their
 * own server (`/`), so the document's base stays `{base_url}` = `…/api`.
 */
import { PREVIEW } from '../../contract/medium.js';
import { SCOPES } from '../../contract/scopes.js';
import type { Stage } from '../../contract/versions.js';
import { type Json, ref } from './openapi-components.js';

export interface FixedOperation {
  path: string;
  /** Whether the path lies outside the document's base (`/api`). */
  root?: boolean;
  operation: Json;
}

const json = (schema: Json) => ({ 'application/json': { schema } });
const requestId = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
const answer = (description: string, schema: Json, headers: Json = {}) => ({
  description,
  headers: { ...requestId, ...headers },
  content: json(schema),
});
const errors = (...names: string[]) => ({
  ...Object.fromEntries(names.map((n) => [n.split(':')[0]!, ref('responses', n.split(':')[1]!)])),
  '4XX': ref('responses', 'ClientError'),
  '5XX': ref('responses', 'ServerError'),
});
const object = (properties: Record<string, Json>): Json => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
  additionalProperties: false,
});
const str = { type: 'string' };

const STAGES: Stage[] = ['beta', 'production', 'deprecated'];

const catalog = object({
  vendor: str,
  versions: {
    type: 'array',
    items: (() => {
      const entry = object({
        endpoint: str,
        method: str,
        header: { type: 'string', enum: ['Accept', 'Content-Type'] },
        mediaType: str,
        version: str,
        stage: { type: 'string', enum: [...STAGES] },
      }) as { properties: Record<string, Json> };
      // Only on types that require body fields beyond their shape (user-invite.v2).
      entry.properties.requires = {
        type: 'array',
        items: str,
        description: 'body fields (dotted paths) this request type requires',
      };
      return entry;
    })(),
  },
});

const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', minLength: 1 },
});
const header = (name: string, description: string) => ({
  name,
  in: 'header',
  required: false,
  description,
  schema: str,
});

function cdn(preview: boolean): FixedOperation {
  const headers = {
    ETag: { description: 'The file’s validator', schema: str },
    'Last-Modified': { description: 'When the medium was uploaded', schema: str },
    'Cache-Control': {
      description: 'private for token access, public until a signed URL expires',
      schema: str,
    },
  };
  const body = {
    '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
  };
  return {
    path: `/cdn/{tenant}/{branch}/{mediumId}/${preview ? `${PREVIEW}/` : ''}{fileName}`,
    root: true,
    operation: {
      operationId: preview ? 'getMediumPreviewFile' : 'getMediumFile',
      summary: preview ? 'Fetch a medium’s preview image' : 'Fetch a medium’s file',
      description:
        'The URL in `resourceInfo.url` is signed (`expires`, `signature`) and works without a token until it expires; otherwise send the token of the file’s branch (media:read). Ranges and conditional requests are honoured.',
      tags: ['CDN'],
      security: [{ apiToken: [] }, { bearerToken: [] }, {}],
      parameters: [
        pathParam('tenant', 'The tenant segment of the publicID'),
        pathParam('branch', 'The branch name'),
        pathParam('mediumId', 'The medium’s id'),
        pathParam('fileName', preview ? 'The preview’s file name' : 'The medium’s file name'),
        {
          name: 'expires',
          in: 'query',
          required: false,
          description: 'Signed URL: expiry (Unix seconds)',
          schema: { type: 'string', pattern: '^\\d+$' },
        },
        {
          name: 'signature',
          in: 'query',
          required: false,
          description: 'Signed URL: its signature',
          schema: str,
        },
        header('Range', 'One byte range, `bytes=start-end`'),
        header('If-None-Match', 'An ETag seen before'),
        header('If-Modified-Since', 'A date seen before'),
        header('If-Range', 'The ETag or date a Range depends on'),
      ],
      responses: {
        '200': { description: 'The file', headers: { ...requestId, ...headers }, content: body },
        '206': {
          description: 'The requested range',
          headers: {
            ...requestId,
            ...headers,
            'Content-Range': { description: 'The range sent', schema: str },
          },
          content: body,
        },
        '304': { description: 'Not modified', headers: { ...requestId, ...headers } },
        '416': {
          description: 'The range lies beyond the file',
          headers: {
            ...requestId,
            'Content-Range': { description: '`bytes */<size>`', schema: str },
          },
        },
        ...errors('401:NotLoggedInException', '403:AccessDeniedException', '404:NotFoundException'),
        ...errors('500:InternalServerErrorException', '503:ServiceUnavailableException'),
      },
    },
  };
}

export const FIXED_OPERATIONS: FixedOperation[] = [
  {
    path: '/',
    operation: {
      operationId: 'getApiCatalog',
      summary: 'List the endpoints’ media types and their stages',
      tags: ['Service'],
      security: [],
      responses: {
        '200': answer('The version registry', catalog),
        ...errors('500:InternalServerErrorException'),
      },
    },
  },
  {
    path: '/openapi.json',
    operation: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      tags: ['Service'],
      security: [],
      responses: {
        '200': answer('OpenAPI 3.1', { type: 'object' }),
        ...errors('500:InternalServerErrorException'),
      },
    },
  },
  {
    path: '/branch',
    operation: {
      operationId: 'getBranch',
      summary: 'The token’s branch and scopes',
      tags: ['Service'],
      responses: {
        '200': answer(
          'The branch (`scopes` is a Roster extension)',
          object({
            id: str,
            name: str,
            slug: str,
            scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
          }),
        ),
        ...errors(
          '401:NotLoggedInException',
          '429:TooManyRequestsException',
          '500:InternalServerErrorException',
          '503:ServiceUnavailableException',
        ),
      },
    },
  },
  {
    path: '/healthz',
    root: true,
    operation: {
      operationId: 'getHealth',
      summary: 'Whether the process answers',
      tags: ['Service'],
      security: [],
      responses: { '200': answer('It answers', object({ status: { const: 'ok' } })), ...errors() },
    },
  },
  {
    path: '/readyz',
    root: true,
    operation: {
      operationId: 'getReadiness',
      summary: 'Whether the server should get requests',
      tags: ['Service'],
      security: [],
      responses: {
        ...errors(),
        '200': answer('Ready', object({ status: { const: 'ready' } })),
        '503': answer(
          'Draining, or the database does not answer or takes no writes (a standby)',
          object({ status: { enum: ['draining', 'database unavailable'] } }),
        ),
      },
    },
  },
  cdn(false),
  cdn(true),
];
