/**
 * The OpenAPI document's components: schemas emitted by zod from the contract's request and
 * response schemas, one response per error kind, the headers and the security scheme.
 */

import { z } from 'zod';
import { ERRORS, type ErrorKind, OUTCOME_HEADER } from '../../contract/errors.js';
import { MAX_CUSTOM_KEY } from '../../contract/limits.js';
import {
  cursorPageSchema,
  errorEnvelopeSchema,
  mediumSchema,
  pageSchema,
  userFlatSchema,
  userV2Schema,
  userV3Schema,
} from '../../contract/representations.js';
import { mediaMetaDataSchema, userBodySchemas } from '../../contract/schemas.js';
import type { Method, Shape } from '../../contract/versions.js';
import { EVENT_SCHEMAS } from './openapi-events.js';

export type Json = Record<string, unknown>;

export const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** zod → JSON Schema 2020-12 (OpenAPI 3.1's dialect), without the `$schema` keyword. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

const USER_RESPONSES = { flat: userFlatSchema, v2: userV2Schema, v3: userV3Schema } as const;
const USER_NAMES = { flat: 'UserFlat', v2: 'UserV2', v3: 'UserV3' } as const;

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The component name of a user request body of `shape` for `method` (POST create, PUT update). */
export function userBodyName(shape: Shape, method: Method): string {
  return `User${method === 'POST' ? 'Create' : 'Update'}${capital(shape)}`;
}

/** The component name of the user representation of `shape`. */
export function userName(shape: Shape): string {
  const name = USER_NAMES[shape as keyof typeof USER_NAMES];
  if (!name) throw new Error(`no user representation for registry shape '${shape}'`);
  return name;
}

/** A schema's alternatives, nested `anyOf`s flattened. */
const alternatives = (schema: Json): Json[] =>
  Array.isArray(schema.anyOf) ? (schema.anyOf as Json[]).flatMap(alternatives) : [schema];

/** The dotted keys of a JSON Schema's object properties: `profile.avatar.original.url`… */
function dottedKeys(schema: Json, prefix = ''): string[] {
  const all = alternatives(schema);
  const objects = all.filter((s) => s.type === 'object' && s.properties);
  // A field with a plain alternative (a string, or null to clear it) is a key itself.
  const leaf = prefix !== '' && objects.length < all.length;
  return [
    ...(leaf ? [prefix] : []),
    ...objects.flatMap((o) =>
      Object.entries(o.properties as Record<string, Json>).flatMap(([k, v]) =>
        dottedKeys(v, prefix ? `${prefix}.${k}` : k),
      ),
    ),
  ];
}

/**
 * Form bodies (PUT /users/{userId}) carry the v3 update as dotted keys, every value a string;
 * an empty value clears the field. Custom profile fields go under `profile.<id>`.
 */
function formSchema(): Json {
  const keys = [...new Set(dottedKeys(jsonSchema(userBodySchemas.v3.update, 'input')))];
  return {
    type: 'object',
    description: 'The v3 update as dotted keys (profile.firstName=Ann); an empty value clears it',
    properties: Object.fromEntries(keys.map((k) => [k, { type: 'string' }])),
    patternProperties: { [`^profile\\.[A-Za-z0-9_-]{1,${MAX_CUSTOM_KEY}}$`]: { type: 'string' } },
    additionalProperties: false,
  };
}

function schemas(): Record<string, Json> {
  const out: Record<string, Json> = {
    Error: jsonSchema(errorEnvelopeSchema),
    Medium: jsonSchema(mediumSchema),
    MediumPage: jsonSchema(pageSchema(mediumSchema)),
    MediaMetaData: jsonSchema(mediaMetaDataSchema),
    UserForm: formSchema(),
    ...EVENT_SCHEMAS,
  };
  for (const [shape, schema] of Object.entries(USER_RESPONSES)) {
    out[userName(shape as Shape)] = jsonSchema(schema);
    out[`${userName(shape as Shape)}Page`] = jsonSchema(cursorPageSchema(schema));
  }
  for (const [shape, ops] of Object.entries(userBodySchemas)) {
    for (const [method, op] of [
      ['POST', 'create'],
      ['PUT', 'update'],
    ] as const) {
      const schema = (ops as Partial<Record<typeof op, z.ZodType>>)[op];
      if (schema) out[userBodyName(shape as Shape, method)] = jsonSchema(schema, 'input');
    }
  }
  return out;
}

/** The error answer of one kind: the envelope with that kind's identifier, status and type. */
function errorResponse(kind: ErrorKind): Json {
  const { statusCode, identifier, type } = ERRORS[kind];
  const retry = kind === 'tooManyRequests' || kind === 'serviceUnavailable';
  return {
    description: `${type} (${identifier})`,
    headers: {
      'X-Request-Id': ref('headers', 'X-Request-Id'),
      ...(retry && { 'Retry-After': ref('headers', 'Retry-After') }),
      ...(kind === 'serviceUnavailable' && { [OUTCOME_HEADER]: ref('headers', OUTCOME_HEADER) }),
      ...(kind === 'methodNotAllowed' && { Allow: ref('headers', 'Allow') }),
    },
    content: {
      'application/json': {
        schema: {
          allOf: [
            ref('schemas', 'Error'),
            {
              type: 'object',
              properties: {
                identifier: { const: identifier },
                statusCode: { const: statusCode },
                type: { const: type },
              },
            },
          ],
        },
      },
    },
  };
}

const anyError = (description: string) => ({
  description,
  headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') },
  content: { 'application/json': { schema: ref('schemas', 'Error') } },
});

const header = (description: string, schema: Json = { type: 'string' }, required = true) => ({
  description,
  required,
  schema,
});

export function components(): Json {
  return {
    securitySchemes: {
      apiToken: {
        type: 'http',
        scheme: 'basic',
        description:
          'The API token (from `roster tokens create`) as it is: `Authorization: Basic <API token>`. The token is the base64 of `<tokenId>:<secret>`, so a tool that asks for a user name and password gets the same header from the token id and the secret.',
      },
    },
    schemas: schemas(),
    responses: {
      ...Object.fromEntries(
        (Object.keys(ERRORS) as ErrorKind[]).map((kind) => [
          ERRORS[kind].type,
          errorResponse(kind),
        ]),
      ),
      ClientError: anyError('Any other client error'),
      ServerError: anyError('Any other server error'),
    },
    headers: {
      'X-Request-Id': header("The request's id, as in the server log (the caller's own when sane)"),
      Location: header('The absolute URL of the created resource', {
        type: 'string',
        format: 'uri',
      }),
      Link: header(
        'The next page as `<URL>; rel="next"` (RFC 8288): the same list continued by its cursor; absent on the last page',
        { type: 'string' },
        false,
      ),
      Deprecation: header(
        '`true` when the negotiated media type is deprecated',
        { type: 'string', const: 'true' },
        false,
      ),
      Allow: header('The methods the resource allows, comma-separated'),
      'Retry-After': header('Seconds to wait before retrying', {
        type: 'string',
        pattern: '^\\d+$',
      }),
      [OUTCOME_HEADER]: header(
        '`unknown` when the write may have been made all the same (the connection to the database went after its commit was sent): look before repeating it. Without it, a create or update answered 503 was not made',
        { type: 'string', const: 'unknown' },
        false,
      ),
    },
  };
}
