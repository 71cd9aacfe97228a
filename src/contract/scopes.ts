/** Token permission scopes; a new token gets all of them unless told otherwise. */
export const SCOPES = ['users:read', 'users:write', 'media:read', 'media:write'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}
