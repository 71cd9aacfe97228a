/**
 * For load balancers and orchestrators, without authentication: `GET /healthz` says the process
 * answers; `GET /readyz` says it should get requests: its database answers and it is not
 * draining (SIGTERM flips it first, so a balancer stops sending before the server stops).
 */
import type Router from '@koa/router';
import type { Store } from '../../store/store.js';
import type { AppState } from '../http/state.js';

export function registerHealthRoutes(
  router: Router<AppState>,
  deps: { store: Store; draining: () => boolean },
): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    if (deps.draining()) {
      ctx.status = 503;
      ctx.body = { status: 'draining' };
      return;
    }
    try {
      await deps.store.ping();
      ctx.body = { status: 'ready' };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'database unavailable' };
    }
  });
}
