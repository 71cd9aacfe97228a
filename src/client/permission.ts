/**
 * A missing permission comes as a 403 or, for some requests on the interface and the platform,
 * as a 401, which is otherwise a token the service does not know. One more request tells those
 * apart: `GET /api/branch`, which any valid token may ask.
 */
import { scopeNeededBy } from '../contract/scopes.js';
import { ApiError, PermissionError } from './errors.js';
import type { RequestSpec } from './types.js';

/** What `GET /api/branch` answered, or undefined when it failed. */
export type BranchProbe = (signal?: AbortSignal) => Promise<unknown>;

/**
 * `err` itself, or a PermissionError when it is a 403 to the API (a token it knows, refused this
 * request: HTTP's own meaning) or a 401 to a token that otherwise works.
 */
export async function explainUnauthorized(
  err: unknown,
  spec: RequestSpec,
  probe: BranchProbe,
): Promise<unknown> {
  if (!(err instanceof ApiError) || err instanceof PermissionError) return err;
  if (err.status !== 401 && err.status !== 403) return err;
  // Only the API's own requests, which carry the token.
  if (!spec.endpoint || spec.token === false) return err;
  if (err.status === 403) {
    return new PermissionError(err, { scope: scopeNeededBy(spec.method, spec.endpoint) });
  }
  let branch: unknown;
  try {
    branch = await probe(spec.signal);
  } catch {
    return err;
  }
  const listed = (branch as { scopes?: unknown } | undefined)?.scopes;
  const tokenScopes =
    Array.isArray(listed) && listed.every((s) => typeof s === 'string') ? listed : undefined;
  return new PermissionError(err, {
    scope: scopeNeededBy(spec.method, spec.endpoint),
    tokenScopes,
  });
}
