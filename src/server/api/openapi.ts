/**
 * The OpenAPI 3.1 document, generated from the version registry and the request schemas, so it
 * cannot drift from what the server negotiates and validates.
 */
import { z } from 'zod';
import { ERRORS } from '../../contract/errors.js';
import { userBodySchemas } from '../../contract/schemas.js';
import {
  type Endpoint,
  type Method,
  mediaTypeOf,
  REGISTRY,
  type Shape,
} from '../../contract/versions.js';
import { FORM_TYPES } from '../http/negotiation.js';

const PATH_PARAMS: Record<Endpoint, string | null> = {
  '/users': null,
  '/users/{userId}': 'userId',
  '/media': null,
  '/media/{mediumID}': 'mediumID',
};

const SUCCESS: Record<Method, string> = { GET: '200', POST: '201', PUT: '200', DELETE: '202' };
const SUCCESS_OVERRIDES: Record<string, string> = {
  'POST /media': '200',
  'DELETE /media/{mediumID}': '204',
};

function requestSchema(shape: Shape, method: Method) {
  if (shape === 'json') return { type: 'object' };
  const op = method === 'POST' ? 'create' : 'update';
  return z.toJSONSchema(userBodySchemas[shape][op], { unrepresentable: 'any' });
}

const errorSchema = {
  type: 'object',
  required: ['identifier', 'statusCode', 'message', 'type'],
  properties: {
    identifier: { type: 'integer', enum: Object.values(ERRORS).map((e) => e.identifier) },
    statusCode: { type: 'integer' },
    message: { type: 'string' },
    type: { type: 'string' },
    details: {
      type: 'array',
      items: {
        type: 'object',
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

export function openApiDocument(vendor: string, serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  const operations = new Set(REGISTRY.map((e) => `${e.method} ${e.endpoint}`));
  for (const key of operations) {
    const [method, endpoint] = key.split(' ') as [Method, Endpoint];
    const entries = REGISTRY.filter((e) => e.method === method && e.endpoint === endpoint);
    const describe = (header: 'accept' | 'content-type'): Record<string, unknown> =>
      Object.fromEntries(
        entries
          .filter((e) => e.header === header)
          .map((e) => [
            mediaTypeOf(e, vendor),
            {
              schema: header === 'accept' ? { type: 'object' } : requestSchema(e.shape, method),
              'x-stage': e.stage,
              'x-version': e.version,
            },
          ]),
      );
    const requestContent = describe('content-type');
    if (method === 'PUT' && endpoint === '/users/{userId}') {
      for (const t of FORM_TYPES)
        requestContent[t] = { schema: { type: 'object' }, 'x-stage': 'production' };
    }
    const param = PATH_PARAMS[endpoint];
    const success = SUCCESS_OVERRIDES[key] ?? SUCCESS[method];
    paths[endpoint] ??= {};
    paths[endpoint]![method.toLowerCase()] = {
      ...(param && {
        parameters: [{ name: param, in: 'path', required: true, schema: { type: 'string' } }],
      }),
      ...(Object.keys(requestContent).length > 0 && {
        requestBody: { required: true, content: requestContent },
      }),
      responses: {
        [success]: { description: 'success', content: describe('accept') },
        default: {
          description: 'error',
          content: { 'application/json': { schema: errorSchema } },
        },
      },
      security: [{ basicToken: [] }],
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'User and media management service', version: '1' },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        basicToken: {
          type: 'http',
          scheme: 'basic',
          description: 'Authorization: Basic <API token>',
        },
      },
    },
    paths,
  };
}
