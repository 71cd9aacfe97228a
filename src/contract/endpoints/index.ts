/**
 * Every endpoint of the API, each declared once (types.ts says what a declaration holds), and
 * what is derived from the path templates alone: which endpoint a path names, and its Allow.
 * The versions registry (versions.ts), the scopes (scopes.ts), the OpenAPI operations
 * (server/api/openapi.ts) and the client's negotiated keys (client/media-types.ts) are derived
 * from the same list. SCIM stays apart (contract/scim.ts): its paths live outside /api, it has
 * one fixed media type, no versions to negotiate, and RFC 7644's answers of its own.
 */
import { EVENT_ENDPOINTS } from './events.js';
import { MEDIA_ENDPOINTS } from './media.js';
import type { EndpointDescriptor } from './types.js';
import { USER_ENDPOINTS } from './users.js';
import { WEBHOOK_ENDPOINTS } from './webhooks.js';

export type { EndpointDescriptor, Method, OpenApiMeta, VersionRow } from './types.js';
export { EVENT_ENDPOINTS, MEDIA_ENDPOINTS, USER_ENDPOINTS, WEBHOOK_ENDPOINTS };

/** In the order the catalog (`GET /api`) and the OpenAPI document list them. */
export const ENDPOINTS = [
  ...Object.values(USER_ENDPOINTS),
  ...Object.values(MEDIA_ENDPOINTS),
  ...Object.values(EVENT_ENDPOINTS),
  ...Object.values(WEBHOOK_ENDPOINTS),
];

/** The path templates of the API (`/users/{userId}`). */
export type Endpoint = (typeof ENDPOINTS)[number]['path'];
/** `GET /users/{userId}`: one endpoint's method and path. */
export type EndpointKey = `${(typeof ENDPOINTS)[number]['method']} ${Endpoint}`;

export const keyOfEndpoint = (d: Pick<EndpointDescriptor, 'method' | 'path'>) =>
  `${d.method} ${d.path}`;

const segments = (path: string) => path.replace(/\/+$/, '').split('/').slice(1);
const parameter = (segment: string) => /^\{(\w+)\}$/.exec(segment)?.[1];

/** The values of `template`'s parameters in `path`, or undefined where it does not match. */
function paramsOf(template: string, path: string): Record<string, string> | undefined {
  const want = segments(template);
  const got = segments(path);
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const name = parameter(segment);
    if (name === undefined ? segment !== got[i] : !got[i]) return undefined;
    if (name !== undefined) params[name] = decodeURIComponent(got[i]!);
  }
  return params;
}

/**
 * The descriptors of the path template a path under the base URL names (`/users/abc/events` →
 * `/users/{userId}/events`), any depth, with its parameters; a trailing slash is no other path
 * (the service's router takes both).
 */
export function matchEndpoint<D extends EndpointDescriptor>(
  path: string,
  endpoints: readonly D[],
): { path: D['path']; params: Record<string, string>; descriptors: D[] } | undefined {
  for (const d of endpoints) {
    const params = paramsOf(d.path, path);
    if (params) {
      const descriptors = endpoints.filter((e) => e.path === d.path);
      return { path: d.path, params, descriptors };
    }
  }
  return undefined;
}

/**
 * The interface's order of methods in Allow ("OPTIONS, POST, GET"; "OPTIONS, PUT, GET,
 * DELETE"): OPTIONS, the writes that make or change, the read, the removal. HEAD is served
 * wherever GET is but, as in the interface, not listed.
 */
const ALLOW_ORDER = ['OPTIONS', 'POST', 'PUT', 'PATCH', 'GET', 'DELETE'];

/** The Allow header of an endpoint's path, from the methods given (default: its descriptors). */
export function allowOf(
  path: string,
  endpoints: readonly Pick<EndpointDescriptor, 'method' | 'path'>[] = ENDPOINTS,
): string {
  const methods = new Set([
    'OPTIONS',
    ...endpoints.filter((d) => d.path === path).map((d) => d.method),
  ]);
  return ALLOW_ORDER.filter((m) => methods.has(m)).join(', ');
}
