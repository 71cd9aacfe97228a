/**
 * Per-token rate limit (`--rate-limit N/s`): a token bucket of N requests refilled at N per
 * second, kept by the store. Off unless configured. Over the limit → 429 with Retry-After.
 */
import type { Middleware } from 'koa';
import type { RateLimits } from '../../store/store.js';
import { AppError } from '../errors.js';
import type { AppState } from './state.js';

export function rateLimitMiddleware(
  limits: RateLimits,
  perSecond: number,
  now: () => number = Date.now,
): Middleware<AppState> {
  return async (ctx, next) => {
    // The buckets live in the store: replicas sharing a database share them.
    const wait = await limits.take(ctx.state.scope.token.id, perSecond, now());
    if (wait > 0) {
      throw new AppError(
        'tooManyRequests',
        `rate limit of ${perSecond} requests per second exceeded; retry after ${wait} s`,
        undefined,
        { 'Retry-After': String(wait) },
      );
    }
    await next();
  };
}

/** Parses `N/s` (or a bare number) as requests per second. */
export function parseRateLimit(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(value.trim());
  const n = m ? Number(m[1]) : Number.NaN;
  if (!(n > 0)) throw new Error(`invalid rate limit '${value}': expected N/s, for example 50/s`);
  return n;
}
