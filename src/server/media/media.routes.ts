/** HTTP for /api/media: scopes, negotiation, validation, the service, the Medium shape. */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { type EndpointDescriptor, MEDIA_ENDPOINTS } from '../../contract/endpoints/index.js';
import { pageQuerySchema } from '../../contract/schemas.js';
import { AppError } from '../errors.js';
import { routeEndpoint } from '../http/endpoint-route.js';
import { parseQuery } from '../http/query.js';
import type { AppContext, AppState } from '../http/state.js';
import type { MediaService } from './media.service.js';
import { MULTIPART_OVERHEAD, tooLarge, type UploadBody } from './receive.js';

/**
 * An upload whose body stops flowing for this long is cut. Only while the body arrives: once it
 * is in, the server's own work (preview queue, preview, storage) does not count.
 */
export const UPLOAD_IDLE_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * Arms an idle timeout on this request's connection only. Node's server destroys a socket whose
 * timeout fires when nobody listens for it, and sets its own keep-alive timeout once the answer
 * is out (and clears it on the next request), so nothing needs undoing here.
 */
function idleTimeout(ctx: AppContext, ms: number) {
  ctx.req.socket.setTimeout(ms);
}

/**
 * The request as the service takes an upload: its body, and a signal that fires when the client
 * goes away before its answer. Once the body is in, the server's own work (queue, preview,
 * storage) must not count against the client's idle timeout.
 */
function uploadBody(ctx: AppContext): UploadBody {
  const { req, res } = ctx;
  const gone = new AbortController();
  if (req.socket.destroyed) gone.abort();
  else res.once('close', () => !res.writableEnded && gone.abort());
  if (req.readableEnded) req.socket.setTimeout(0);
  else req.once('end', () => req.socket.setTimeout(0));
  return { stream: req, headers: req.headers, signal: gone.signal };
}

export function registerMediaRoutes(
  router: Router<AppState>,
  media: MediaService,
  opts: {
    vendor: string;
    maxUploadBytes: number;
    cdnBase: (ctx: AppContext) => string;
    /** Default UPLOAD_IDLE_TIMEOUT_MS. */
    uploadIdleTimeoutMs?: number;
  },
): void {
  const { vendor, maxUploadBytes } = opts;
  const route = (d: EndpointDescriptor, handler: Middleware<AppState>) =>
    routeEndpoint(router, d, { vendor }, handler);
  const view = (ctx: AppContext) => media.viewer(ctx.state.scope, opts.cdnBase(ctx));

  route(MEDIA_ENDPOINTS.list, async (ctx) => {
    const page = await media.list(ctx.state.scope, parseQuery(pageQuerySchema, ctx.query));
    ctx.body = { ...page, data: page.data.map(view(ctx)) };
  });

  route(MEDIA_ENDPOINTS.upload, async (ctx) => {
    if (!ctx.is('multipart/form-data')) {
      throw new AppError(
        'unsupportedMediaType',
        `Content-Type '${ctx.get('Content-Type') || '(none)'}' is not supported by POST /media; send multipart/form-data with the parts metaData and file`,
      );
    }
    if (Number(ctx.get('Content-Length')) > maxUploadBytes + MULTIPART_OVERHEAD) {
      throw tooLarge(maxUploadBytes);
    }
    idleTimeout(ctx, opts.uploadIdleTimeoutMs ?? UPLOAD_IDLE_TIMEOUT_MS);
    const { row, previewError } = await media.upload(ctx.state.scope, uploadBody(ctx));
    ctx.body = { ...view(ctx)(row), ...(previewError ? { previewError } : {}) };
  });

  route(MEDIA_ENDPOINTS.get, async (ctx) => {
    ctx.body = view(ctx)(await media.get(ctx.state.scope, ctx.params.mediumID!));
  });

  route(MEDIA_ENDPOINTS.remove, async (ctx) => {
    await media.remove(ctx.state.scope, ctx.params.mediumID!);
    ctx.status = 204;
  });
}
