/**
 * One request, attempts included: retries with full-jitter backoff or the service's
 * Retry-After (capped in total), one step down of the media types after a 406 or 415, and
 * error answers and network failures mapped to typed errors.
 */
import { STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import { isOneShot, openBody } from './body.js';
import { type Dispatch, proxyRefusal } from './dispatch.js';
import { ApiError, ClientError, NetworkError, noteProxy, redactUrl } from './errors.js';
import type { Negotiation } from './negotiate.js';
import { type Answer, errorFromAnswer, header } from './response.js';
import {
  backoffDelay,
  errorCode,
  isRetryableNetworkError,
  isRetryableStatus,
  isUnavailable,
  parseRetryAfter,
  type RetryOptions,
  sleep,
} from './retry.js';
import {
  answerLine,
  failureLine,
  requestLine,
  stepLine,
  stopwatch,
  type Trace,
  vendorLine,
} from './trace.js';
import type { RequestSpec, RetryInfo } from './types.js';
import { targetOf } from './url.js';

export interface SendContext {
  baseUrl: string;
  dispatch: Dispatch;
  negotiation: Negotiation;
  timeoutMs: number;
  retry: Required<RetryOptions>;
  trace?: Trace;
  onRetry?: (info: RetryInfo) => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** How an attempt failed, and whether and when it may be tried again. */
interface Failure {
  error: ClientError;
  reason: string;
  retryable: boolean;
  afterMs?: number;
  /** The service said it is unavailable for now (isUnavailable): retried for time, not count. */
  unavailable?: boolean;
}

export type Send = <T>(
  spec: RequestSpec,
  consume: (a: Answer, url: string) => Promise<T>,
) => Promise<T>;

export function createSend(ctx: SendContext): Send {
  const { dispatch, negotiation, timeoutMs, retry, trace } = ctx;

  return async function send<T>(
    spec: RequestSpec,
    consume: (a: Answer, url: string) => Promise<T>,
  ): Promise<T> {
    await negotiation.prepare(spec);
    const url = targetOf(ctx.baseUrl, spec);
    const href = url.href;
    const plan = negotiation.plan(spec, url);
    const via = dispatch.viaOf(url);
    const oneShot = isOneShot(plan.payload);
    let started = false; // whether a one-shot body began to be read: then no retry
    const replayable = () => !oneShot || !started;
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const elapsed = stopwatch(trace);
      trace?.(requestLine(spec.method, href, via));
      let failure: Failure;
      try {
        const dispatcher = await dispatch.dispatcherFor(url.origin);
        const res = await dispatcher.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: spec.method,
          headers: plan.headers,
          // Per request too: a forwarding proxy's connection is made without the pool options.
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          body: openBody(plan.payload, () => {
            started = true;
          }),
          signal: spec.signal,
        });
        const answer: Answer = { status: res.statusCode, headers: res.headers, body: res.body };
        const deprecated = Boolean(header(res.headers, 'deprecation'));
        trace?.(answerLine(res.statusCode, elapsed(), deprecated));
        if (res.statusCode < 400) {
          const vendor = plan.learn();
          if (vendor) trace?.(vendorLine(vendor));
          return await consume(answer, href);
        }
        // A DELETE retried after a failure the first attempt may have acted on, now answered
        // 404: that first attempt removed it. Gone is what was asked for.
        if (res.statusCode === 404 && spec.method === 'DELETE' && attempt > 1) {
          await res.body.dump();
          return await consume({ status: 204, headers: {}, body: Readable.from([]) }, href);
        }
        const error = await errorFromAnswer(answer, spec.method, href);
        if (via) noteProxy(error, via, url);
        if (replayable() && error instanceof ApiError) {
          const step = await plan.stepDown(res.statusCode, error);
          if (step) {
            trace?.(stepLine(step.to));
            attempt--;
            continue;
          }
        }
        const afterMs = parseRetryAfter(header(res.headers, 'retry-after'));
        const unavailable = isUnavailable(
          res.statusCode,
          afterMs,
          error instanceof ApiError && error.outcomeUnknown,
        );
        failure = {
          error,
          reason: `${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}`.trim(),
          retryable: unavailable || isRetryableStatus(res.statusCode, spec.method),
          afterMs,
          unavailable,
        };
      } catch (err) {
        if (err instanceof ClientError) throw err;
        if (spec.signal?.aborted) throw spec.signal.reason ?? err;
        const code = errorCode(err);
        trace?.(failureLine(code, elapsed()));
        const error = new NetworkError({
          method: spec.method,
          url: href,
          code,
          cause: err,
          attempts: attempt,
          timeoutMs,
          via: via && { ...via, status: proxyRefusal(err) },
        });
        failure = {
          error,
          reason: code ?? 'network error',
          retryable: isRetryableNetworkError(code, spec.method),
        };
      }
      const delayMs = failure.afterMs ?? backoffDelay(attempt - 1, retry);
      const counted = !failure.unavailable && attempt > retry.maxRetries;
      if (!failure.retryable || !replayable() || counted || spec.once) throw failure.error;
      // An unavailable service is waited for as long as the command's --timeout allows.
      const budget = failure.unavailable
        ? Math.max(retry.maxTotalWaitMs, timeoutMs)
        : retry.maxTotalWaitMs;
      if (waited + delayMs > budget) throw failure.error;
      ctx.onRetry?.({
        method: spec.method,
        url: redactUrl(href),
        retry: attempt,
        maxRetries: retry.maxRetries,
        ...(failure.unavailable ? { untilMs: budget } : {}),
        delayMs,
        reason: failure.reason,
      });
      await (ctx.sleep ?? sleep)(delayMs, spec.signal);
      waited += delayMs;
    }
  };
}
