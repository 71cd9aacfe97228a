import {
  ENDPOINTS,
  type EndpointDescriptor,
  type EndpointKey,
  keyOfEndpoint,
} from './endpoints/index.js';

/** Token permission scopes; a new token gets all of them unless told otherwise. */
export const SCOPES = [
  'users:read',
  'users:write',
  'media:read',
  'media:write',
  'events:read',
  'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

/**
 * Where a token works: `api` (the REST API under /api, and /cdn) or `scim` (/scim/v2). A token
 * is made for one or both (`roster tokens create --for`); made for neither it would be useless.
 * A provisioning secret pasted into an identity provider then cannot administer /api, and a
 * read-only REST token cannot enumerate users through SCIM filters.
 */
export const CHANNELS = ['api', 'scim'] as const;
export type Channel = (typeof CHANNELS)[number];

export function isChannel(s: string): s is Channel {
  return (CHANNELS as readonly string[]).includes(s);
}

type ScopeRule = readonly [Scope, 401 | 403];

/** Which scope each request of these endpoints needs, and how a token without it is answered. */
export function neededScopesOf(
  endpoints: readonly Pick<EndpointDescriptor, 'method' | 'path' | 'scope'>[],
): Record<string, ScopeRule> {
  return Object.fromEntries(endpoints.map((d) => [keyOfEndpoint(d), d.scope]));
}

/** SCIM (RFC 7644 §3.12): a token without the permission is 403, whatever the operation. */
const SCIM_SCOPES = {
  'GET /scim/v2/Users': ['users:read', 403],
  'POST /scim/v2/Users': ['users:write', 403],
} as const satisfies Record<string, ScopeRule>;

/**
 * Which scope each API request needs, and how the service answers a token without it: the
 * interface answers some with 401, as the platform does, and others with 403. The server's
 * routes require these; the client names the missing one. The API's come from its endpoints'
 * declarations (contract/endpoints/).
 */
export const NEEDED_SCOPES = {
  ...neededScopesOf(ENDPOINTS),
  ...SCIM_SCOPES,
} as Record<EndpointKey | keyof typeof SCIM_SCOPES, ScopeRule>;

export type ScopedRequest = keyof typeof NEEDED_SCOPES;

/** The scope a request needs (`GET`, `/media`), if it is one of the API's. */
export function scopeNeededBy(method: string, endpoint: string): Scope | undefined {
  const rule = (NEEDED_SCOPES as Record<string, ScopeRule | undefined>)[`${method} ${endpoint}`];
  return rule?.[0];
}
