/**
 * A raw call (`roster api`, as `gh api`): any path of the API with the client's token, tenant
 * and negotiated media types. The path is relative to the base URL and must stay on its origin
 * and under its path, so the token never goes anywhere else, whatever the path says.
 */
import {
  ENDPOINTS,
  type Endpoint,
  type EndpointDescriptor,
  matchEndpoint,
} from '../contract/endpoints/index.js';
import { ClientError } from './errors.js';
import type { HttpClient, HttpMethod, JsonResponse, RequestSpec } from './types.js';

export const RAW_METHODS: readonly HttpMethod[] = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
];

/** Headers a raw call may not set: the token is the profile's, the host its API's. */
export const RESERVED_HEADERS = ['authorization', 'host'] as const;

/**
 * The path under the base URL (`/users?limit=5`) that `path` names, or a reason to refuse it: an
 * absolute URL, a `//host` or `\\host` path, or anything that resolves off the API.
 */
export function apiPath(baseUrl: string, path: string): { path: string } | { refused: string } {
  const base = new URL(baseUrl.replace(/\/+$/, ''));
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || /^[/\\]{2}/.test(path)) {
    return { refused: 'an absolute URL or //host' };
  }
  const relative = path.startsWith('/') ? path : `/${path}`;
  const url = new URL(`${base.href}${relative}`);
  const under = url.pathname === base.pathname || url.pathname.startsWith(`${base.pathname}/`);
  if (url.origin !== base.origin || !under) return { refused: `outside ${base.href}` };
  return { path: url.pathname.slice(base.pathname.length) + url.search };
}

/**
 * The declared endpoint a path names (`/users/abc` → `/users/{userId}`, any depth), for
 * negotiation; undefined where no endpoint of that path has this method (sent as it is).
 */
export function endpointOf(
  path: string,
  method: HttpMethod,
  endpoints: readonly EndpointDescriptor[] = ENDPOINTS,
): { endpoint: Endpoint; params: Record<string, string> } | undefined {
  const matched = matchEndpoint(path.split('?')[0]!, endpoints);
  if (!matched?.descriptors.some((d) => d.method === method)) return undefined;
  // A path of the declarations given (a test's own may lie outside the API's union).
  return { endpoint: matched.path as Endpoint, params: matched.params };
}

export interface RawRequest {
  method: HttpMethod;
  /** Relative to the base URL (see apiPath). */
  path: string;
  /** A JSON body (sent with the negotiated request type where the endpoint has one). */
  json?: unknown;
  /** Instead of json: bytes, with `contentType` (default application/json). */
  body?: Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Sends a raw request; errors are the client's (ApiError for an error status). */
export async function rawRequest(
  http: HttpClient,
  req: RawRequest,
): Promise<JsonResponse<unknown>> {
  const target = apiPath(http.baseUrl, req.path);
  if ('refused' in target) {
    throw new ClientError(`refused ${req.path}: ${target.refused}`, req.method, http.baseUrl);
  }
  for (const name of Object.keys(req.headers ?? {})) {
    if ((RESERVED_HEADERS as readonly string[]).includes(name.toLowerCase())) {
      throw new ClientError(`refused header ${name}`, req.method, http.baseUrl);
    }
  }
  const [pathname, search = ''] = target.path.split(/\?(.*)/s);
  const matched = endpointOf(pathname!, req.method);
  const spec: RequestSpec = {
    method: req.method,
    headers: req.headers,
    ...(matched
      ? { ...matched, query: Object.fromEntries(new URLSearchParams(search)) }
      : { url: target.path }),
    ...(req.json !== undefined
      ? { json: req.json }
      : req.body
        ? { body: req.body, contentType: req.contentType ?? 'application/json' }
        : {}),
  };
  return http.json(spec);
}
