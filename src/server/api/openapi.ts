/**
 * The OpenAPI 3.1 document, generated from the endpoints' declarations (their versions and
 * operations' texts: contract/endpoints/) and the contract's zod schemas,
 * so it cannot drift from what the server negotiates, validates and answers. Made once per
 * vendor word, on the first request for it, so the server's start does not pay for it.
 */
import { ENDPOINTS, type EndpointDescriptor } from '../../contract/endpoints/index.js';
import { ERRORS, type ErrorKind } from '../../contract/errors.js';
import { userBodySchemas } from '../../contract/schemas.js';
import { SCIM_BASE_PATH } from '../../contract/scim.js';
import {
  type Endpoint,
  type Header,
  mediaTypeOf,
  registryOf,
  type VersionEntry,
  versionsOf,
} from '../../contract/versions.js';
import { components, type Json, ref, userBodyName } from './openapi-components.js';
import {
  headersOf,
  moreBodiesOf,
  PATH_PARAMETERS,
  queryOf,
  successBody,
} from './openapi-operations.js';
import { SCIM_ERRORS, SCIM_PATHS, SCIM_SCHEMAS } from './openapi-scim.js';
import { FIXED_OPERATIONS } from './openapi-service.js';
import { WEBHOOK_SCHEMAS } from './openapi-webhooks.js';

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

/** One endpoint's registry entries for one header, oldest first. */
type VersionsOf = (d: EndpointDescriptor, header: Header) => VersionEntry[];

function requestBody(d: EndpointDescriptor, vendor: string, versions: VersionsOf) {
  const { method, path } = d;
  const content: Record<string, Json> = {};
  for (const e of versions(d, 'content-type')) {
    const ops: Record<string, unknown> | undefined =
      userBodySchemas[e.shape as keyof typeof userBodySchemas];
    if (!ops?.[method === 'POST' ? 'create' : 'update'])
      throw new Error(`no request schema for registry shape '${e.shape}' (${method} ${path})`);
    const shape = ref('schemas', userBodyName(e.shape, method));
    content[mediaTypeOf(e, vendor)] = {
      schema: e.requires ? { allOf: [shape, requiredPaths(e.requires)] } : shape,
      'x-stage': e.stage,
      'x-version': e.version,
    };
  }
  Object.assign(content, moreBodiesOf(d.openapi, d.forms));
  return Object.keys(content).length > 0 ? { required: true, content } : undefined;
}

/** `/users/{userId}` → its path parameters, each described once (PATH_PARAMETERS). */
function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
    const p = PATH_PARAMETERS[name!];
    if (!p) throw new Error(`the path parameter {${name}} of ${path} has no OpenAPI description`);
    return p;
  });
}

function registryOperation(d: EndpointDescriptor, vendor: string, versions: VersionsOf): Json {
  const meta = d.openapi;
  const responses = versions(d, 'accept');
  const deprecated = [...responses, ...versions(d, 'content-type')].some(
    (e) => e.stage === 'deprecated',
  );
  const content = Object.fromEntries(
    responses.flatMap((e) => {
      const schema = successBody(meta.body, e.shape);
      const media = { schema, 'x-stage': e.stage, 'x-version': e.version };
      return schema ? [[mediaTypeOf(e, vendor), media]] : [];
    }),
  );
  const body = requestBody(d, vendor, versions);
  const parameters = [...pathParameters(d.path), ...queryOf(meta)];
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
          ...headersOf(meta),
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

/** The document of the endpoints declared (a test passes its own), for a vendor word. */
export function openApiDocument(
  vendor: string,
  serverUrl: string,
  endpoints: readonly EndpointDescriptor[] = ENDPOINTS,
) {
  const registry = registryOf(endpoints);
  const versions: VersionsOf = (d, header) =>
    versionsOf(d.path as Endpoint, d.method, header, registry);
  const paths: Record<string, Json> = {};
  const registryPaths = new Set<string>();
  for (const d of endpoints) {
    registryPaths.add(d.path);
    paths[d.path] ??= {};
    paths[d.path]![d.method.toLowerCase()] = registryOperation(d, vendor, versions);
  }
  for (const { path, root, operation } of FIXED_OPERATIONS) {
    paths[path] = { ...(root && { servers: [{ url: '/' }] }), get: operation };
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
