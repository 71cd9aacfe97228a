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

/**
 * Which scope each API request needs, and how the service answers a token without it: the
 * interface answers some with 401, as the platform does, and others with 403. The server's
 * routes require these; the client names the missing one.
 */
export const NEEDED_SCOPES = {
  'GET /users': ['users:read', 403],
  'POST /users': ['users:write', 401],
  'GET /users/{userId}': ['users:read', 403],
  'PUT /users/{userId}': ['users:write', 401],
  'DELETE /users/{userId}': ['users:write', 403],
  'GET /media': ['media:read', 401],
  'POST /media': ['media:write', 401],
  'GET /media/{mediumID}': ['media:read', 401],
  'DELETE /media/{mediumID}': ['media:write', 403],
  'GET /events': ['events:read', 403],
  // Every webhook operation, reads too: an endpoint's URL and deliveries are its admin's.
  'GET /webhooks': ['webhooks:write', 403],
  'POST /webhooks': ['webhooks:write', 403],
  // SCIM (RFC 7644 §3.12): a token without the permission is 403, whatever the operation.
  'GET /scim/v2/Users': ['users:read', 403],
  'POST /scim/v2/Users': ['users:write', 403],
} as const satisfies Record<string, readonly [Scope, 401 | 403]>;

export type ScopedRequest = keyof typeof NEEDED_SCOPES;

/** The scope a request needs (`GET`, `/media`), if it is one of the API's. */
export function scopeNeededBy(method: string, endpoint: string): Scope | undefined {
  const rule = (NEEDED_SCOPES as Record<string, readonly [Scope, number]>)[`${method} ${endpoint}`];
  return rule?.[0];
}
