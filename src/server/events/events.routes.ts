/** HTTP for /api/events: validate, call the service, answer `{data, next}` and its Link. */
import type Router from '@koa/router';
import { EVENT_ENDPOINTS } from '../../contract/endpoints/index.js';
import { routeEndpoint } from '../http/endpoint-route.js';
import type { AppState } from '../http/state.js';
import type { EventsService } from './events.service.js';
import { parseEventsQuery } from './events-query.js';

export interface EventsRouting {
  vendor: string;
  /** Aborted when the server drains: long polls answer at once. */
  drain: AbortSignal;
  pollMs?: number;
}

export function registerEventRoutes(
  router: Router<AppState>,
  events: EventsService,
  { vendor, drain, pollMs }: EventsRouting,
): void {
  routeEndpoint(router, EVENT_ENDPOINTS.list, { vendor }, async (ctx) => {
    const query = parseEventsQuery(ctx.query);
    // A long poll ends when its client goes (the response closes unanswered) or we drain.
    const gone = new AbortController();
    const end = () => gone.abort();
    ctx.res.once('close', end);
    drain.addEventListener('abort', end);
    try {
      const signal = gone.signal;
      const page = await events.list(ctx.state.scope, query, {
        signal,
        pollMs,
        stillAuthenticated: ctx.state.stillAuthenticated,
      });
      if (page.more) {
        const link = new URLSearchParams(ctx.querystring);
        link.set('after', page.next);
        link.delete('wait');
        ctx.set('Link', `<${ctx.state.origin}/api/events?${link}>; rel="next"`);
      }
      ctx.body = Buffer.from(JSON.stringify({ data: page.data, next: page.next }));
    } finally {
      ctx.res.off('close', end);
      drain.removeEventListener('abort', end);
    }
  });
}
