/**
 * A 401 is either a token the service does not know or one without the permission this
 * request needs: the interface and the platform answer some missing permissions with 401. One
 * more request tells them apart: `GET /api/branch`, which any valid token may ask.
 */
import { scopeNeededBy } from '../contract/scopes.js';
import { ApiError, PermissionError } from './errors.js';
import type { RequestSpec } from './types.js';

/** What `GET /api/branch` answered, or undefined when it failed. */
export type BranchProbe = (signal?: AbortSignal) => Promise<unknown>;

/** `err` itself, or a PermissionError when it is a 401 to a token that otherwise works. */
export async function explainUnauthorized(
  err: unknown,
  spec: RequestSpec,
  probe: BranchProbe,
): Promise<unknown> {
  if (!(err instanceof ApiError) || err.status !== 401 || err instanceof PermissionError) {
    return err;
  }
  // Only the API's own requests, which carry the token.
  if (!spec.endpoint || spec.token === false) return err;
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
