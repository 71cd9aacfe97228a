/**
 * HTTP for /api/webhooks (CONTRACT.md, "Webhooks"): plain JSON in and out, scope
 * webhooks:write for every operation, reads included.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { requireScopeOf } from '../http/auth.middleware.js';
import { readJsonBody } from '../http/body.js';
import type { AppState } from '../http/state.js';
import type { WebhooksService } from './webhooks.service.js';

const json = (ctx: { body: unknown; type: string }, value: unknown) => {
  ctx.type = 'application/json';
  ctx.body = Buffer.from(JSON.stringify(value));
};

export function registerWebhookRoutes(router: Router<AppState>, webhooks: WebhooksService): void {
  const scope: Middleware<AppState> = requireScopeOf('POST /webhooks');
  const base = '/api/webhooks';
  router.get(base, scope, async (ctx) => {
    json(ctx, { data: await webhooks.list(ctx.state.scope) });
  });
  router.post(base, scope, async (ctx) => {
    const created = await webhooks.create(ctx.state.scope, await readJsonBody(ctx));
    ctx.status = 201;
    ctx.set('Location', `${ctx.state.origin}${base}/${created.id}`);
    json(ctx, created);
  });
  router.get(`${base}/:id`, scope, async (ctx) => {
    json(ctx, await webhooks.get(ctx.state.scope, ctx.params.id!));
  });
  router.patch(`${base}/:id`, scope, async (ctx) => {
    json(ctx, await webhooks.update(ctx.state.scope, ctx.params.id!, await readJsonBody(ctx)));
  });
  router.delete(`${base}/:id`, scope, async (ctx) => {
    await webhooks.remove(ctx.state.scope, ctx.params.id!);
    ctx.status = 204;
  });
  router.post(`${base}/:id/rotate-secret`, scope, async (ctx) => {
    json(ctx, await webhooks.rotate(ctx.state.scope, ctx.params.id!));
  });
  // A delivery made (201) and one made due again (200): answers with a body are not 202 here.
  router.post(`${base}/:id/test`, scope, async (ctx) => {
    ctx.status = 201;
    json(ctx, await webhooks.test(ctx.state.scope, ctx.params.id!));
  });
  router.get(`${base}/:id/deliveries`, scope, async (ctx) => {
    json(ctx, { data: await webhooks.deliveries(ctx.state.scope, ctx.params.id!) });
  });
  router.post(`${base}/:id/deliveries/:deliveryId/retry`, scope, async (ctx) => {
    json(ctx, await webhooks.retry(ctx.state.scope, ctx.params.id!, ctx.params.deliveryId!));
  });
}
