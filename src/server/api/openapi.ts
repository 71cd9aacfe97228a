/**
 * The OpenAPI 3.1 document, generated from the version registry and the contract's zod schemas,
 * so it cannot drift from what the server negotiates, validates and answers. Made once per
 * vendor word, on the first request for it, so the server's start does not pay for it.
 */
import { ERRORS, type ErrorKind } from '../../contract/errors.js';
import { userBodySchemas } from '../../contract/schemas.js';
import { SCIM_BASE_PATH } from '../../contract/scim.js';
import {
  type Endpoint,
  type Method,
  mediaTypeOf,
  REGISTRY,
  versionsOf,
} from '../../contract/versions.js';
import { components, type Json, ref, userBodyName } from './openapi-components.js';
import { PATH_PARAMETERS, REGISTRY_OPERATIONS } from './openapi-operations.js';
import { SCIM_ERRORS, SCIM_PATHS, SCIM_SCHEMAS } from './openapi-scim.js';
import { FIXED_OPERATIONS } from './openapi-service.js';
import { WEBHOOK_PATHS, WEBHOOK_SCHEMAS } from './openapi-webhooks.js';

const requestId = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
const errorRef = (kind: ErrorKind) => ref('responses', ERRORS[kind].type);
/** Every 4xx and 5xx answer is the error envelope (the error middleware makes sure of it). */
const anyError = { '4XX': ref('responses', 'ClientError'), '5XX': ref('responses', 'ServerError') };

/** A schema that requires the dotted paths (`role`, `config.locale`) to be present. */
function requiredPaths(paths: readonly string[]): Json {
  const below = new Map<string, string[]>();
  for (const path of paths) {
    const [head, ...rest] = path.split('.');
    below.set(head!, [...(below.get(head!) ?? []), ...(rest.length ? [rest.join('.')] : [])]);
  }
  // Each named, so tools see the requirement as a property (its shape is the body schema's).
  const properties = Object.fromEntries(
    [...below].map(([k, rest]) => [k, rest.length > 0 ? requiredPaths(rest) : {}]),
  );
  return { type: 'object', required: [...below.keys()], properties };
}

function requestBody(method: Method, endpoint: Endpoint, vendor: string, more: Json = {}) {
  const content: Record<string, Json> = {};
  for (const e of versionsOf(endpoint, method, 'content-type')) {
    const ops: Record<string, unknown> | undefined =
      userBodySchemas[e.shape as keyof typeof userBodySchemas];
    if (!ops?.[method === 'POST' ? 'create' : 'update'])
      throw new Error(`no request schema for registry shape '${e.shape}' (${method} ${endpoint})`);
    const shape = ref('schemas', userBodyName(e.shape, method));
    content[mediaTypeOf(e, vendor)] = {
      schema: e.requires ? { allOf: [shape, requiredPaths(e.requires)] } : shape,
      'x-stage': e.stage,
      'x-version': e.version,
    };
  }
  Object.assign(content, more);
  return Object.keys(content).length > 0 ? { required: true, content } : undefined;
}

function registryOperation(method: Method, endpoint: Endpoint, vendor: string): Json {
  const meta = REGISTRY_OPERATIONS[`${method} ${endpoint}`];
  if (!meta)
    throw new Error(`${method} ${endpoint} is in the registry but has no OpenAPI description`);
  const responses = versionsOf(endpoint, method, 'accept');
  const deprecated = [...responses, ...versionsOf(endpoint, method, 'content-type')].some(
    (e) => e.stage === 'deprecated',
  );
  const content = Object.fromEntries(
    responses.flatMap((e) => {
      const schema = meta.body(e.shape);
      const media = { schema, 'x-stage': e.stage, 'x-version': e.version };
      return schema ? [[mediaTypeOf(e, vendor), media]] : [];
    }),
  );
  const param = /\{(\w+)\}/.exec(endpoint)?.[1];
  const body = requestBody(method, endpoint, vendor, meta.moreBodies);
  const parameters = [...(param ? [PATH_PARAMETERS[param]!] : []), ...(meta.parameters ?? [])];
  return {
    operationId: meta.operationId,
    summary: meta.summary,
    ...(meta.description && { description: meta.description }),
    tags: [meta.tag],
    ...(parameters.length > 0 && { parameters }),
    ...(body && { requestBody: body }),
    responses: {
      [meta.success]: {
        description: 'Success',
        headers: {
          ...requestId,
          ...meta.headers,
          ...(deprecated && { Deprecation: ref('headers', 'Deprecation') }),
        },
        ...(Object.keys(content).length > 0 && { content }),
      },
      ...Object.fromEntries(meta.errors.map((k) => [String(ERRORS[k].statusCode), errorRef(k)])),
      ...anyError,
    },
  };
}

/** HEAD is served wherever GET is: the GET's status and headers, never a body. */
function headOf(get: Json): Json {
  const responses = get.responses as Record<string, Json>;
  return {
    ...get,
    operationId: `${get.operationId}Head`,
    summary: `${get.summary} (headers only)`,
    responses: Object.fromEntries(
      Object.entries(responses).map(([status, r]) => [
        status,
        {
          // An error by reference: its name says which (its envelope is not sent to HEAD).
          description: (r.description as string) ?? String(r.$ref).split('/').at(-1),
          ...(r.headers ? { headers: r.headers } : {}),
        },
      ]),
    ),
  };
}

/** `/users/{userId}` → `UsersUserId`, for the OPTIONS operation's id. */
const pascal = (path: string) =>
  path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('') || 'Api';

/** OPTIONS answers 204 with Allow; on the registry's resources it needs a token, as they do. */
function optionsOf(path: string, sibling: Json, authenticated: boolean, base: string): Json {
  const pathParameters = ((sibling.parameters as Json[] | undefined) ?? []).filter(
    (p) => p.in === 'path',
  );
  const authErrors: ErrorKind[] = authenticated ? ['notLoggedIn', 'tooManyRequests'] : [];
  return {
    operationId: `options${pascal(path)}`,
    summary: `Methods allowed on ${base}${path === '/' ? '' : path}`,
    tags: sibling.tags,
    ...(!authenticated && { security: [] }),
    ...(pathParameters.length > 0 && { parameters: pathParameters }),
    responses: {
      '204': {
        description: 'The allowed methods',
        headers: { ...requestId, Allow: ref('headers', 'Allow') },
      },
      ...Object.fromEntries(authErrors.map((k) => [String(ERRORS[k].statusCode), errorRef(k)])),
      ...anyError,
    },
  };
}

export function openApiDocument(vendor: string, serverUrl: string) {
  const paths: Record<string, Json> = {};
  const registryPaths = new Set<string>();
  for (const key of new Set(REGISTRY.map((e) => `${e.method} ${e.endpoint}`))) {
    const [method, endpoint] = key.split(' ') as [Method, Endpoint];
    registryPaths.add(endpoint);
    paths[endpoint] ??= {};
    paths[endpoint][method.toLowerCase()] = registryOperation(method, endpoint, vendor);
  }
  for (const { path, root, operation } of FIXED_OPERATIONS) {
    paths[path] = { ...(root && { servers: [{ url: '/' }] }), get: operation };
  }
  for (const [path, item] of Object.entries(WEBHOOK_PATHS)) {
    paths[path] = { ...item };
    // Behind the API's token, as the registry's resources are (OPTIONS too).
    registryPaths.add(path);
  }
  for (const [path, item] of Object.entries(SCIM_PATHS)) {
    paths[path] = { servers: [{ url: '/' }], ...item };
  }
  for (const [path, item] of Object.entries(paths)) {
    const { servers, ...ops } = item;
    if (ops.get) item.head = headOf(ops.get as Json);
    const base = servers ? '' : serverUrl;
    const sibling = Object.values(ops)[0] as Json;
    item.options = optionsOf(path, sibling, registryPaths.has(path), base);
    if (path.startsWith(SCIM_BASE_PATH)) {
      item.options = { ...(item.options as Json), tags: ['SCIM'] };
      Object.assign((item.options as { responses: Json }).responses, SCIM_ERRORS);
    }
  }
  const all = components();
  Object.assign(all.schemas as Json, SCIM_SCHEMAS, WEBHOOK_SCHEMAS);
  Object.assign(all.securitySchemes as Json, {
    bearerToken: {
      type: 'http',
      scheme: 'bearer',
      description:
        'The same API token as a bearer token: `Authorization: Bearer <token>`, as identity providers send it (`roster tokens create --for scim`); the REST API takes it too. A token works where it was made for: /api, /scim or both (`--for api,scim`).',
    },
  });
  // Only what is referred to: an error no operation answers, or a shape no version uses, is noise.
  const keep = (kind: 'responses' | 'schemas', from: unknown) => {
    const used = JSON.stringify(from);
    all[kind] = Object.fromEntries(
      Object.entries(all[kind] as Json).filter(([n]) =>
        used.includes(`#/components/${kind}/${n}"`),
      ),
    );
  };
  keep('responses', paths);
  keep('schemas', [paths, all.responses]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'User and media management service',
      version: '1',
      description: `Served by \`roster serve\`. Versions are negotiated per endpoint and method with media types (Accept for answers, Content-Type for bodies); \`GET ${serverUrl}\` lists them.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl }],
    security: [{ apiToken: [] }, { bearerToken: [] }],
    tags: [
      { name: 'Users', description: 'The branch’s user accounts' },
      { name: 'Media', description: 'Uploaded files and their previews' },
      { name: 'Events', description: 'The audit log of every change, to list or follow' },
      { name: 'Webhooks', description: 'Signed deliveries of events to a receiver’s URL' },
      { name: 'CDN', description: 'The stored files themselves' },
      { name: 'Service', description: 'Discovery and health' },
      {
        name: 'SCIM',
        description: 'SCIM 2.0 provisioning for identity providers (Entra ID, Okta)',
      },
    ],
    paths,
    components: all,
  };
}

const cache = new Map<string, string>();

/**
 * The document for `vendor` as JSON text, made on first use and kept: it depends on nothing
 * else, and serialising the whole document again for every request of a public route would
 * cost far more than the request (bench/README.md, "Figures from src/ comments").
 */
export function openApiJson(vendor: string, serverUrl: string): string {
  const key = `${vendor} ${serverUrl}`;
  let text = cache.get(key);
  if (text === undefined) {
    text = JSON.stringify(openApiDocument(vendor, serverUrl));
    cache.set(key, text);
  }
  return text;
}
