/**
 * Tenant by Host, then token auth, then the token's channel, then scopes. A token only counts on
 * its own tenant's host and on a channel it was made for (`tokens create --for`); which scope a
 * route needs and how a missing one answers come from the contract's table. The tenant's public
 * origin is set here too: one middleware less on every API request.
 */
import type { Middleware } from 'koa';
import { RUN_ID_HEADER } from '../../contract/events.js';
import {
  type Channel,
  NEEDED_SCOPES,
  type Scope,
  type ScopedRequest,
} from '../../contract/scopes.js';
import type { Store } from '../../store/store.js';
import { AppError } from '../errors.js';
import { requestAudit } from './audit.js';
import { type AppState, publicOrigin } from './state.js';

const REQUIRES_AUTH =
  'this endpoint requires authentication: send "Authorization: Basic <API token>" (or Bearer; create one with `roster tokens create`)';
/** SCIM clients send a bearer token (RFC 7644 §2), and are told so as RFC 6750 §3 says. */
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="roster"' };
const REQUIRES_BEARER =
  'this endpoint requires authentication: send "Authorization: Bearer <token>" (create one with `roster tokens create --for scim`)';

/** Why a live token is refused on a channel it was not made for, and how to get one that is. */
const WRONG_CHANNEL: Record<Channel, (name: string) => string> = {
  api: (name) =>
    `the token '${name}' is made for SCIM (/scim/v2) only; the REST API needs a token made without --for scim (\`roster tokens create\`, or --for api,scim for both)`,
  scim: (name) =>
    `the token '${name}' is made for the REST API only; SCIM needs a token made with \`roster tokens create --for scim\` (or --for api,scim for both)`,
};

/**
 * Both schemes on either channel: the token string is the same, and an admin who sends the
 * REST API a Bearer token (as most APIs take one) was told it was invalid, then revoked it.
 */
const SCHEME = /^(?:Basic|Bearer) +(\S+) *$/i;

/** The token string of an Authorization header (Basic or Bearer), or undefined. */
export const tokenOfHeader = (header: string): string | undefined => SCHEME.exec(header)?.[1];

/**
 * `publicUrl`: serve's --public-url, for the default tenant (see `publicOrigin`). `channel`:
 * which one this router is; `scim` also answers a 401 as RFC 6750 says (SCIM clients send
 * `Authorization: Bearer <token>`).
 */
export function authMiddleware(
  store: Store,
  publicUrl: string | undefined,
  channel: Channel,
): Middleware<AppState> {
  const bearer = channel === 'scim';
  return async (ctx, next) => {
    const refused = (message: string) =>
      new AppError('notLoggedIn', message, undefined, bearer ? CHALLENGE : undefined);
    const header = ctx.get('Authorization');
    if (!header) throw refused(bearer ? REQUIRES_BEARER : REQUIRES_AUTH);
    const token = tokenOfHeader(header);
    const host = ctx.hostname.toLowerCase();
    const scope = token === undefined ? undefined : await store.credentials.resolve(host, token);
    if (!scope || token === undefined) {
      throw refused(
        'the API token is invalid, revoked or not valid for this host; check the token and the base URL',
      );
    }
    if (!scope.token.channels.includes(channel))
      throw refused(WRONG_CHANNEL[channel](scope.token.name));
    const audit = requestAudit(scope.token, channel, ctx.state.requestId, ctx.get(RUN_ID_HEADER));
    ctx.state.scope = { ...scope, audit };
    ctx.state.stillAuthenticated = async () =>
      (await store.credentials.resolve(host, token)) !== undefined;
    ctx.state.origin = publicOrigin(ctx, scope.tenant, publicUrl);
    await next();
  };
}

/** Requires an API request's scope; a missing one answers 401 or 403 as the contract's table says. */
export function requireScopeOf(request: ScopedRequest): Middleware<AppState> {
  const [scope, answer] = NEEDED_SCOPES[request];
  return requireScope(scope, answer);
}

/** Requires a scope; a missing one answers `answer` (SCIM: always 403, RFC 7644 §3.12). */
export function requireScope(scope: Scope, answer: 401 | 403): Middleware<AppState> {
  // Not an async function: it has nothing to do after the rest, so it hands on the rest's
  // promise instead of making and awaiting one of its own (a throw here rejects all the same).
  return (ctx, next) => {
    const { token, branch } = ctx.state.scope;
    if (!token.scopes.includes(scope)) {
      throw new AppError(
        answer === 401 ? 'notLoggedIn' : 'accessDenied',
        `the token '${token.name}' lacks the ${scope} permission on branch '${branch.name}'`,
      );
    }
    return next();
  };
}
