/**
 * Tenant by Host, then Basic token auth, then scopes. A token only counts on its own tenant's
 * host; which scope a route needs and how a missing one answers come from the contract's table.
 */
import type { Middleware } from 'koa';
import type { Scope } from '../../contract/scopes.js';
import type { Store } from '../../store/store.js';
import { AppError } from '../errors.js';
import type { AppState, RequestScope } from './state.js';

const REQUIRES_AUTH =
  'this endpoint requires authentication: send "Authorization: Basic <API token>" (create one with `roster tokens create`)';

/** Caps the credential cache; a flood of distinct valid tokens just empties it. */
const MAX_CACHED = 10_000;

export function authMiddleware(store: Store): Middleware<AppState> {
  // Successful lookups by (host, Authorization), dropped whenever credentials may have changed.
  const cache = new Map<string, RequestScope>();
  let version = store.credentialsVersion();

  const lookup = (host: string, header: string): RequestScope | undefined => {
    const tenant = store.tenants.resolve(host);
    const match = /^Basic +(\S+) *$/i.exec(header);
    const token = match ? store.tokens.authenticate(match[1]!) : undefined;
    const branch = token && store.branches.byId(token.branchId);
    if (!tenant || !token || !branch || branch.tenantId !== tenant.id) return undefined;
    return { tenant, branch, token };
  };

  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    if (!header) throw new AppError('notLoggedIn', REQUIRES_AUTH);
    const current = store.credentialsVersion();
    if (current !== version || cache.size >= MAX_CACHED) {
      cache.clear();
      version = current;
    }
    const host = ctx.hostname.toLowerCase();
    const key = `${host}\n${header}`;
    let scope = cache.get(key);
    if (!scope) {
      scope = lookup(host, header);
      if (!scope) {
        throw new AppError(
          'notLoggedIn',
          'the API token is invalid, revoked or not valid for this host; check the token and the base URL',
        );
      }
      cache.set(key, scope);
    }
    ctx.state.scope = scope;
    await next();
  };
}

/** Requires a scope; a missing one answers 401 or 403 as the contract's table says. */
export function requireScope(scope: Scope, answer: 401 | 403): Middleware<AppState> {
  return async (ctx, next) => {
    const { token, branch } = ctx.state.scope;
    if (!token.scopes.includes(scope)) {
      throw new AppError(
        answer === 401 ? 'notLoggedIn' : 'accessDenied',
        `the token '${token.name}' lacks the ${scope} permission on branch '${branch.name}'`,
      );
    }
    await next();
  };
}
