/**
 * `GET /api/branch`: the token's branch, as on the real platform (`{id, name, slug}`), plus the
 * token's scopes as a Roster extension. Any valid token may ask: it is what `roster auth status`
 * shows.
 */
import type Router from '@koa/router';
import type { AppState } from '../http/state.js';

export function registerBranchRoutes(router: Router<AppState>): void {
  router.get('/api/branch', (ctx) => {
    const { branch, token } = ctx.state.scope;
    ctx.body = {
      id: String(branch.id),
      name: branch.name,
      slug: branch.name.toLowerCase(),
      scopes: token.scopes,
    };
  });
}
