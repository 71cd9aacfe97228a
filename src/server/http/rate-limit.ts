/**
 * Per-token rate limit (`--rate-limit N/s`): a token bucket of N requests refilled at N per
 * second. Off unless configured. Over the limit → 429 with Retry-After.
 */
import type { Middleware } from 'koa';
import { AppError } from '../errors.js';
import type { AppState } from './state.js';

export function rateLimitMiddleware(perSecond: number): Middleware<AppState> {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return async (ctx, next) => {
    const id = ctx.state.scope.token.id;
    const now = Date.now();
    const bucket = buckets.get(id) ?? { tokens: perSecond, at: now };
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    buckets.set(id, bucket);
    if (bucket.tokens < 1) {
      const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      throw new AppError(
        'tooManyRequests',
        `rate limit of ${perSecond} requests per second exceeded; retry after ${wait} s`,
        undefined,
        { 'Retry-After': String(wait) },
      );
    }
    bucket.tokens -= 1;
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
