/**
 * HTTP for /api/webhooks (docs/events.md, "Webhooks"): each operation's path, scope
 * (webhooks:write, reads included), negotiation (plain JSON) and OPTIONS come from its
 * declaration (contract/endpoints/webhooks.ts); the handlers only call the service.
 */
import type Router from '@koa/router';
import { WEBHOOK_ENDPOINTS as W } from '../../contract/endpoints/index.js';
import { readJsonBody } from '../http/body.js';
import { routeEndpoint } from '../http/endpoint-route.js';
import type { AppState } from '../http/state.js';
import type { WebhooksService } from './webhooks.service.js';

/** The answer as JSON text; its Content-Type is the negotiated one (application/json). */
const json = (ctx: { body: unknown }, value: unknown) => {
  ctx.body = Buffer.from(JSON.stringify(value));
};

export function registerWebhookRoutes(
  router: Router<AppState>,
  webhooks: WebhooksService,
  { vendor }: { vendor: string },
): void {
  const on = { vendor };
  routeEndpoint(router, W.list, on, async (ctx) => {
    json(ctx, { data: await webhooks.list(ctx.state.scope) });
  });
  routeEndpoint(router, W.create, on, async (ctx) => {
    const created = await webhooks.create(ctx.state.scope, await readJsonBody(ctx));
    ctx.status = 201;
    ctx.set('Location', `${ctx.state.origin}/api/webhooks/${created.id}`);
    json(ctx, created);
  });
  routeEndpoint(router, W.get, on, async (ctx) => {
    json(ctx, await webhooks.get(ctx.state.scope, ctx.params.webhookId!));
  });
  routeEndpoint(router, W.update, on, async (ctx) => {
    const patch = await readJsonBody(ctx);
    json(ctx, await webhooks.update(ctx.state.scope, ctx.params.webhookId!, patch));
  });
  routeEndpoint(router, W.remove, on, async (ctx) => {
    await webhooks.remove(ctx.state.scope, ctx.params.webhookId!);
    ctx.status = 204;
  });
  routeEndpoint(router, W.rotateSecret, on, async (ctx) => {
    json(ctx, await webhooks.rotate(ctx.state.scope, ctx.params.webhookId!));
  });
  // A delivery made (201) and one made due again (200): answers with a body are not 202 here.
  routeEndpoint(router, W.test, on, async (ctx) => {
    ctx.status = 201;
    json(ctx, await webhooks.test(ctx.state.scope, ctx.params.webhookId!));
  });
  routeEndpoint(router, W.deliveries, on, async (ctx) => {
    json(ctx, { data: await webhooks.deliveries(ctx.state.scope, ctx.params.webhookId!) });
  });
  routeEndpoint(router, W.retry, on, async (ctx) => {
    const { webhookId, deliveryId } = ctx.params;
    json(ctx, await webhooks.retry(ctx.state.scope, webhookId!, deliveryId!));
  });
}
