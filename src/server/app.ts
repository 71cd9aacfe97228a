/**
 * The service as a value: `createApp` wires middleware and routes around a store it is given
 * (no module state), and `listen`/`close` start and drain it. Tests and `roster serve` alike.
 */

import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { SEARCH_COUNT_UP_TO } from '../contract/schemas.js';
import { signatures } from '../contract/webhook-signature.js';
import type { Store } from '../store/store.js';
import { registerApiRoutes } from './api/api.routes.js';
import { registerBranchRoutes } from './api/branch.routes.js';
import { registerHealthRoutes } from './api/health.routes.js';
import { registerCdnRoutes } from './cdn/cdn.routes.js';
import { urlSigner } from './cdn/signing.js';
import {
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
  DEFAULT_PREVIEW_TIMEOUT_MS,
  type ServerConfig,
} from './config.js';
import { registerEventRoutes } from './events/events.routes.js';
import { eventsService } from './events/events.service.js';
import { gentlePace, startPruner } from './events/retention.js';
import { authMiddleware } from './http/auth.middleware.js';
import { answerClientError } from './http/client-error.js';
import { guardConnections } from './http/connection-guards.js';
import { errorMiddleware } from './http/error.middleware.js';
import { createMetrics } from './http/metrics.js';
import { rateLimitMiddleware } from './http/rate-limit.js';
import { requestIdOf } from './http/request-id.js';
import { routeByPrefix } from './http/routing.js';
import type { AppContext, AppState } from './http/state.js';
import { type OutboxDelivery, outboxDelivery } from './mail/delivery.js';
import { emlTransport, type MailTransport, smtpTransport } from './mail/transports.js';
import { registerMediaRoutes } from './media/media.routes.js';
import { mediaService } from './media/media.service.js';
import type { PreviewScheduler } from './media/preview-scheduler.js';
import { sweepMedia } from './media/sweep.js';
import { scimErrorBody } from './scim/errors.js';
import { registerScimRoutes, SCIM_TYPE } from './scim/scim.routes.js';
import { scimService } from './scim/scim.service.js';
import { avatarMedia } from './users/avatars.js';
import { cursorSeal, listCursors } from './users/list-cursor.js';
import { registerUserRoutes } from './users/users.routes.js';
import { usersService } from './users/users.service.js';
import { sendAttempt } from './webhooks/attempt.js';
import { checkWebhookUrl, type EgressPolicy, guardedDispatcher } from './webhooks/egress.js';
import { nextRetryDelay } from './webhooks/schedule.js';
import { registerWebhookRoutes } from './webhooks/webhooks.routes.js';
import { webhooksService } from './webhooks/webhooks.service.js';
import { type WebhookWorker, webhookWorker } from './webhooks/worker.js';

export interface AppDeps {
  store: Store;
  config: ServerConfig;
  /** Where server log lines go (stderr for `roster serve`). */
  log?: (line: string) => void;
  /** How preview slots are shared (default: fair shares of one slot per core). */
  previewScheduler?: PreviewScheduler;
}

export interface RunningApp {
  url: string;
  port: number;
  server: Server;
}

import { SIGNING_SECRET_KEY } from '../store/common/meta-keys.js';

export { SIGNING_SECRET_KEY };

export async function createApp({ store, config, log = () => {}, previewScheduler }: AppDeps) {
  const app = new Koa<AppState>();
  let draining = false;
  // Long polls (GET /api/events?wait=) answer at once when the server drains.
  const drain = new AbortController();
  // Koa's default prints to the console; errors it sees after a response began (a client that
  // vanished mid-request, a malformed request line) go to our log, and only real ones.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ECONNRESET' || err.code?.startsWith('HPE_') || err.message === 'aborted')
      return;
    log(`error: ${err.stack ?? err.message}`);
  });

  app.use(async (ctx, next) => {
    const started = performance.now();
    ctx.state.bodyTimeoutMs = config.bodyTimeoutMs;
    ctx.state.requestId = requestIdOf(ctx.get('X-Request-Id'));
    await next();
    // Straight to Node: Koa's ctx.set makes arrays (to take a name or an object) every call.
    const res = ctx.res;
    if (!res.headersSent) {
      // After the error envelope too (it clears what handlers set): every answer names its id.
      res.setHeader('X-Request-Id', ctx.state.requestId);
      // While draining, answer in-flight requests but close their connections.
      if (draining) res.setHeader('Connection', 'close');
      // API answers hold tenant data: never sniffed, never kept by a cache. /cdn has its own.
      if (!ctx.path.startsWith('/cdn/')) {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Cache-Control', 'no-store');
      }
    }
    if (config.accessLog) {
      const ms = (performance.now() - started).toFixed(1);
      log(`${ctx.method} ${ctx.path} ${ctx.status} ${ms} ms ${ctx.state.requestId}`);
    }
  });
  const metrics = config.metricsToken ? createMetrics(config.metricsToken, store) : undefined;
  if (metrics) app.use(metrics.middleware);
  app.use(errorMiddleware(log, [{ prefix: '/scim/', type: SCIM_TYPE, body: scimErrorBody }]));

  const publicRouter = new Router<AppState>();
  const kind = config.likePlatform ? 'platform' : 'roster';
  if (kind === 'roster') registerApiRoutes(publicRouter, config.vendor);
  registerHealthRoutes(publicRouter, { store, draining: () => draining });
  metrics?.register(publicRouter);

  const api = new Router<AppState>();
  api.use(authMiddleware(store, config.publicUrl, 'api'));
  if (config.rateLimit) api.use(rateLimitMiddleware(store.rateLimits, config.rateLimit));
  registerBranchRoutes(api);
  let delivery: OutboxDelivery | undefined;
  let webhooks: WebhookWorker | undefined;
  const egress: EgressPolicy = {
    allowHttp: config.webhooksAllowHttp ?? false,
    allow: config.webhooksAllow ?? [],
    ...(config.webhooksProxy ? { proxy: config.webhooksProxy } : {}),
  };
  // The platform's totals are exact, so its stand-in's are too.
  const countUpTo =
    kind === 'platform' ? undefined : (config.searchCountUpTo ?? SEARCH_COUNT_UP_TO);
  // Signed CDN URLs and list cursors: the secret is made once per database and kept in its
  // meta table, so every replica signs and checks with the same one.
  const secret = Buffer.from(
    await store.meta.getOrCreate(SIGNING_SECRET_KEY, () => randomBytes(32).toString('base64url')),
    'base64url',
  );
  const signer = urlSigner(secret, config.signedUrlTtlSeconds);
  const media = mediaService({
    store,
    blobs: store.blobs,
    signer,
    unsignedUrls: config.cdnTokenOnly,
    maxUploadBytes: config.maxUploadBytes,
    previewTimeoutMs: config.previewTimeoutMs ?? DEFAULT_PREVIEW_TIMEOUT_MS,
    defaultQuotaBytes: config.quotaBytes,
    stripMetadata: config.stripMetadata,
    previewScheduler,
    metrics,
    log,
  });
  const cdnUrl = config.cdnUrl?.replace(/\/+$/, '');
  const cdnBase = (ctx: AppContext) => cdnUrl ?? `${ctx.state.origin}/cdn`;
  const avatars = avatarMedia({
    store,
    viewer: media.viewer,
    removeMedium: media.remove,
    contents: media.contents,
  });
  const users = usersService(store, {
    invited: () => delivery?.kick(),
    // A removed user's avatar media go with it, whichever channel removed it (REST, SCIM).
    removed: avatars.removeOf,
    countUpTo,
    secretHashCost: config.secretHashCost,
    cursors: listCursors(secret),
  });
  registerUserRoutes(api, users, config.vendor, kind, { service: avatars, cdnBase });

  // SCIM 2.0 for identity providers: the same tokens, tenants and users service as /api.
  const scim = new Router<AppState>();
  scim.use(authMiddleware(store, config.publicUrl, 'scim'));
  if (config.rateLimit) scim.use(rateLimitMiddleware(store.rateLimits, config.rateLimit));
  registerScimRoutes(scim, scimService(users), {
    invitations: (ctx) => ctx.state.scope.tenant.scimInvitations,
  });
  registerMediaRoutes(api, media, {
    vendor: config.vendor,
    maxUploadBytes: config.maxUploadBytes,
    cdnBase,
    uploadIdleTimeoutMs: config.uploadIdleTimeoutMs,
  });
  if (kind === 'roster') {
    registerEventRoutes(api, eventsService(store, cursorSeal(secret)), {
      vendor: config.vendor,
      drain: drain.signal,
      pollMs: config.eventsPollMs,
    });
    registerWebhookRoutes(
      api,
      webhooksService({
        store,
        checkUrl: (url) => checkWebhookUrl(url, egress),
        kick: () => webhooks?.kick(),
        ...(config.webhookTuning?.now ? { now: config.webhookTuning.now } : {}),
      }),
      { vendor: config.vendor },
    );
  }
  // /cdn authorises per file (signed URL or token), not through the API's auth middleware.
  const cdn = new Router<AppState>();
  registerCdnRoutes(cdn, {
    store,
    blobs: store.blobs,
    signer: config.cdnTokenOnly ? undefined : signer,
  });

  // API paths meet the API router first: its routes are the hot ones, and a path it has no route
  // for (`/api/openapi.json`) goes on to the public router.
  app.use(
    routeByPrefix({
      prefixes: [
        ['/api/', [api, publicRouter]],
        ['/cdn/', [cdn]],
        ['/scim/', [scim]],
      ],
      rest: [publicRouter],
    }),
  );

  let server: Server | undefined;
  let pruner: ReturnType<typeof startPruner> | undefined;
  return {
    koa: app,
    /** Every router, for tests that enumerate the routes (test/server/events/write-path.test.ts). */
    routers: [publicRouter, api, scim, cdn] as const,
    /** Sweeps the media left inconsistent by a crash, then listens. */
    async listen(port: number, host = '127.0.0.1'): Promise<RunningApp> {
      await sweepMedia(store, store.blobs, log, {
        force: config.forceSweep,
        graceMs: config.sweepGraceMs,
      });
      delivery = outboxDelivery({
        outbox: store.outbox,
        transport: await mailTransport(config),
        log,
        retryBaseMs: config.mailRetryBaseMs,
      });
      delivery.kick();
      pruner = startPruner({
        events: store.events,
        webhooks: store.webhooks,
        days: config.eventsRetentionDays,
        log,
        ...(store.policy.blockingStatements ? { pace: gentlePace() } : {}),
      });
      if (kind === 'roster') {
        const dispatcher = guardedDispatcher(egress);
        const { timeoutMs, ...tuning } = config.webhookTuning ?? {};
        webhooks = webhookWorker({
          store,
          send: (request) =>
            sendAttempt(request, {
              dispatcher,
              ...(timeoutMs ? { timeoutMs } : {}),
              ...(tuning.now ? { now: tuning.now } : {}),
            }),
          sign: signatures,
          nextDelay: nextRetryDelay,
          log,
          ...tuning,
        });
        webhooks.kick();
      }
      return new Promise((resolve, reject) => {
        const keepAliveTimeout = config.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
        // Node closes a connection whose next request's headers take longer than this; it must
        // not cut an idle keep-alive connection before keepAliveTimeout does.
        const headersTimeout = config.headersTimeoutMs ?? keepAliveTimeout + 5_000;
        const s = createServer(
          {
            // A 1 GiB upload on a slow link outlasts Node's 5-minute request timeout; the upload
            // route cuts a stalled one with an idle timeout instead. (Not a server-wide socket
            // timeout: it is refreshed on every read and write, which a small GET pays for in
            // CPU: bench/README.md, "Figures from src/ comments".)
            requestTimeout: 0,
            headersTimeout,
            keepAliveTimeout,
            // How often Node looks for connections past the headers deadline: its default 30 s
            // let a 7 s deadline run to 37 s. The look is over connections mid-headers only.
            connectionsCheckingInterval: Math.min(1_000, Math.max(10, headersTimeout / 5)),
          },
          app.callback(),
        );
        server = s;
        guardConnections(s, {
          maxPerClient: config.maxConnectionsPerClient ?? DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
          headersTimeoutMs: headersTimeout,
        });
        s.on('clientError', answerClientError);
        s.once('error', reject);
        s.listen(port, host);
        s.once('listening', () => {
          const address = s.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve({ url: `http://${shownHost}:${address.port}`, port: address.port, server: s });
        });
      });
    },
    /**
     * Drains, then closes: /readyz fails at once and answers say `Connection: close`; after the
     * drain delay the listener stops accepting, in-flight requests (uploads too) finish, up to
     * `graceMs`, and idle connections close.
     */
    async close(graceMs = 10_000, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))) {
      draining = true;
      drain.abort();
      pruner?.stop();
      if (config.drainDelayMs && server?.listening) await sleep(config.drainDelayMs);
      const s = server;
      // What is in flight is settled first (at most one attempt's timeout); the rest waits.
      const stopMail = () =>
        Promise.all([delivery?.stop(), webhooks?.stop()]).then(() => undefined);
      if (!s?.listening) return stopMail();
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => s.closeAllConnections(), graceMs);
        force.unref();
        s.close(() => {
          clearTimeout(force);
          resolve();
        });
        s.closeIdleConnections();
      }).then(stopMail);
    },
  };
}

/** SMTP when configured, else `.eml` files in the data dir (temp files a crash left removed). */
async function mailTransport(config: ServerConfig): Promise<MailTransport> {
  if (config.smtpUrl) return smtpTransport(config.smtpUrl);
  const files = emlTransport(config.dataDir);
  await files.sweep();
  return files;
}

export type App = Awaited<ReturnType<typeof createApp>>;
