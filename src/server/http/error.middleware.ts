/**
 * The one place failures become answers: every error, unknown route and unmatched method leaves
 * as the contract's envelope. Unexpected errors are logged (without request headers, so no
 * token) and answered 500 with no stack trace.
 */
import type { Middleware } from 'koa';
import { errorEnvelope, OUTCOME_HEADER } from '../../contract/errors.js';
import { CommitOutcomeUnknownError, StoreUnavailableError } from '../../store/errors.js';
import { AppError } from '../errors.js';
import { discardRest } from './body.js';

const STORE_RETRY_AFTER_SECONDS = 2;

/** An answer's body in another protocol's error format, for the paths under `prefix`. */
export interface ErrorDialect {
  prefix: string;
  type: string;
  body: (err: AppError) => unknown;
}

export function errorMiddleware(
  log: (line: string) => void,
  dialects: readonly ErrorDialect[] = [],
): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) {
        throw new AppError('notFound', `no such resource: ${ctx.method} ${ctx.path}`);
      }
      if (ctx.status === 501 && ctx.body == null) {
        throw new AppError('notImplemented', `${ctx.method} is not a method this server knows`);
      }
      if (ctx.status === 405 && ctx.body == null) {
        const allow = String(ctx.response.get('Allow'));
        throw new AppError(
          'methodNotAllowed',
          `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`,
          undefined,
          { Allow: allow },
        );
      }
    } catch (err) {
      const appError = asAppError(err);
      if (appError.kind === 'internal') {
        log(
          `error: ${ctx.method} ${ctx.path} [${ctx.state.requestId}]: ${(err as Error)?.stack ?? String(err)}`,
        );
      } else if (err instanceof StoreUnavailableError) {
        log(`error: ${ctx.method} ${ctx.path} [${ctx.state.requestId}]: ${err.message}`);
      }
      const envelope = errorEnvelope(appError.kind, appError.message, appError.details);
      // Headers a handler set before failing (a file's ETag, caching, disposition) must not
      // describe the error answer.
      if (!ctx.headerSent) {
        for (const name of ctx.res.getHeaderNames()) ctx.res.removeHeader(name);
      }
      ctx.status = envelope.statusCode;
      ctx.set(appError.headers ?? {});
      // An error answered before the body was read: a stalled body's connection is closed; of
      // any other, a little more is read so the client sees the answer, then it is cut.
      if (!ctx.req.complete) {
        if (appError.kind === 'requestTimeout') ctx.set('Connection', 'close');
        else discardRest(ctx.req);
      }
      const dialect = dialects.find((d) => ctx.path.startsWith(d.prefix));
      ctx.type = dialect?.type ?? 'application/json';
      ctx.body = dialect ? dialect.body(appError) : envelope;
    }
  };
}

function asAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as {
    status?: number;
    expose?: boolean;
    message?: string;
    type?: string;
    code?: string;
  };
  // The client went away mid-request: nobody reads the answer, and it is not our failure.
  if (e?.code === 'ECONNRESET' || e?.message === 'aborted') {
    return new AppError('validation', 'the client aborted the request');
  }
  // A full disk (or a database that may not grow) is the operator's to fix, not a bug.
  if (e?.code === 'SQLITE_FULL' || e?.code === 'ENOSPC' || e?.code === 'EDQUOT') {
    return new AppError(
      'insufficientStorage',
      "the server's storage is full; delete media you no longer need, or ask the operator to free space (deletes keep working)",
    );
  }
  // The connection went between COMMIT and its answer: a client repeating the request blindly
  // may make the change twice, so it is told to look first.
  if (err instanceof CommitOutcomeUnknownError) {
    return new AppError(
      'serviceUnavailable',
      'the connection to the database was lost while the change was being committed: it may have been made; look before repeating the request (a repeated create may answer 409)',
      undefined,
      { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS), [OUTCOME_HEADER]: 'unknown' },
    );
  }
  // The database is away or too slow: worth retrying shortly, and logged for the operator.
  if (err instanceof StoreUnavailableError) {
    return new AppError(
      'serviceUnavailable',
      'the service cannot reach its database right now; retry in a few seconds',
      undefined,
      { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
    );
  }
  // Errors Koa and Node raise themselves (client aborts, malformed URLs).
  if (e?.status === 400 || e?.type === 'entity.parse.failed') {
    return new AppError('validation', e.expose && e.message ? e.message : 'malformed request');
  }
  if (e?.status === 413) return new AppError('payloadTooLarge', 'request body is too large');
  return new AppError('internal', 'internal server error; the server log has the details');
}
