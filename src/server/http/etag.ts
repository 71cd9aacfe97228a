/**
 * A user's ETag is its version counter (not a timestamp: two writes in one millisecond differ),
 * weak because the representations of one version differ by media type. If-Match compares
 * weakly, as SCIM clients send back the weak tag they were given (RFC 7644 §3.14).
 */

/** Whether a request's precondition (If-Match) accepts a user's version. */
export type VersionCheck = (version: number) => boolean;

export const etagOf = (version: number) => `W/"${version}"`;

/** The check an If-Match header asks for; undefined when there is none. */
export function ifMatch(header: string | undefined): VersionCheck | undefined {
  if (!header?.trim()) return undefined;
  if (header.trim() === '*') return () => true;
  const tags = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return (version) => tags.includes(`"${version}"`);
}
