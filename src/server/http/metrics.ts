/**
 * `GET /metrics` in Prometheus' text format (prom-client), off unless a metrics token is
 * configured, and then only for `Authorization: Bearer <that token>` (not an API token: a
 * monitoring system gets no access to tenant data). Requests are counted by route pattern, never
 * by raw path, so a scanner cannot explode the label set.
 */
import { timingSafeEqual } from 'node:crypto';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Store } from '../../store/store.js';
import { AppError } from '../errors.js';
import type { AppState } from './state.js';

export interface Metrics {
  /** Counts and times every request; put it outermost. */
  middleware: Middleware<AppState>;
  /** Uploads being received or processed right now. */
  uploadsInFlight: Gauge;
  /** Previews waiting for a slot or being made. */
  previewsPending: Gauge;
  register(router: Router<AppState>): void;
}

export function createMetrics(token: string, store: Store): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'roster_' });
  const requests = new Counter({
    name: 'roster_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'roster_http_request_duration_seconds',
    help: 'Time to answer, by route pattern and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [registry],
  });
  const uploadsInFlight = new Gauge({
    name: 'roster_uploads_in_flight',
    help: 'Uploads being received or processed',
    registers: [registry],
  });
  const previewsPending = new Gauge({
    name: 'roster_previews_pending',
    help: 'Previews waiting for a slot or being made',
    registers: [registry],
  });
  new Gauge({
    name: 'roster_db_pool_connections',
    help: 'Database pool connections by state (PostgreSQL)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = store.poolStats?.();
      if (!stats) return;
      for (const [state, n] of Object.entries(stats)) this.set({ state }, n);
    },
  });

  const expected = Buffer.from(`Bearer ${token}`);
  const authorized = (header: string) => {
    const given = Buffer.from(header);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  return {
    uploadsInFlight,
    previewsPending,
    middleware: async (ctx, next) => {
      const end = duration.startTimer();
      try {
        await next();
      } finally {
        // The router's pattern (`/api/users/:userId`), or one label for everything unrouted.
        const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
        const labels = { route: String(route), method: ctx.method };
        end(labels);
        requests.inc({ ...labels, status: String(ctx.status) });
      }
    },
    register(router) {
      router.get('/metrics', async (ctx) => {
        if (!authorized(ctx.get('Authorization'))) {
          throw new AppError(
            'notLoggedIn',
            "/metrics needs the metrics token (serve's --metrics-token): Authorization: Bearer <token>",
            undefined,
            { 'WWW-Authenticate': 'Bearer realm="metrics"' },
          );
        }
        ctx.type = registry.contentType;
        ctx.body = await registry.metrics();
      });
    },
  };
}
