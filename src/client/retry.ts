/**
 * The retry policy: which failures may be retried for which method, and how long to wait.
 * undici's RetryAgent is not used: it has no jitter and never retries POST, while a POST is
 * safe to repeat whenever the service cannot have acted on it (429, connection refused).
 */

export interface RetryOptions {
  /** Retries after the first attempt. Default 4. */
  maxRetries?: number;
  /** First backoff ceiling; doubles per retry. Default 250 ms. */
  baseDelayMs?: number;
  /** Largest backoff ceiling. Default 8 s. */
  maxDelayMs?: number;
  /** Gives up rather than wait longer than this in total (Retry-After included). Default 30 s. */
  maxTotalWaitMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxRetries: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxTotalWaitMs: 30_000,
};

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Errors raised before a connection exists: the service never saw the request. */
const NOT_SENT = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** Errors no retry will fix. */
const PERMANENT = new Set([
  'ENOTFOUND',
  'EPROTO',
  'UND_ERR_ABORTED',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
  // undici's own refusal of a request (also how a forwarding proxy's 407 surfaces).
  'UND_ERR_INVALID_ARG',
]);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

/** 429 always (the service did not act); 5xx only when repeating the request is harmless. */
export function isRetryableStatus(status: number, method: string): boolean {
  if (status === 429) return true;
  return status >= 500 && status !== 501 && status !== 505 && isIdempotent(method);
}

/**
 * A 503 with Retry-After: the service says it could not handle the request now and when to come
 * back (its database switching over, no replica ready behind a balancer). It did not act, so
 * any method may be sent again — unless it says the outcome is unknown (`Roster-Outcome:
 * unknown`: a commit whose answer was lost), which only the caller can resolve. Such a wait is
 * bounded by time, not by a count of retries: a failover lasts seconds, whatever the attempts.
 * Retry-After must name a second or more, so that the waits add up to the budget.
 */
export function isUnavailable(
  status: number,
  retryAfterMs: number | undefined,
  outcomeUnknown: boolean,
): boolean {
  // At least a second: each wait must bring the time budget closer (`Retry-After: 0` asks for
  // the counted retries of any 5xx instead).
  return status === 503 && retryAfterMs !== undefined && retryAfterMs >= 1000 && !outcomeUnknown;
}

/** A failure of the network or the peer (errno, undici), not of this process (ERR_STRING_TOO_LONG…). */
const isNetworkCode = (code: string) =>
  (/^E[A-Z0-9_]+$/.test(code) && !code.startsWith('ERR_')) || code.startsWith('UND_ERR_');

export function isRetryableNetworkError(code: string | undefined, method: string): boolean {
  if (!code || !isNetworkCode(code)) return false;
  if (NOT_SENT.has(code)) return true;
  if (code && PERMANENT.has(code)) return false;
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return false;
  return isIdempotent(method);
}

/** Full jitter: uniform in [0, min(maxDelay, base · 2^retry)) (AWS Architecture Blog, 2015). */
export function backoffDelay(
  retry: number,
  opts: Required<RetryOptions>,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or bad. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The code of a network error, looking through undici's wrappers and AggregateErrors. */
export function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const inner = e instanceof AggregateError ? e.errors[0] : (e as { cause?: unknown }).cause;
    e = inner;
  }
  return undefined;
}

/** Sleeps `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
