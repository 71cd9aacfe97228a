/** Rate-limit buckets for SQLite, in memory: one process serves a data dir (data-dir/lock.ts). */
import type { RateLimits } from '../store.js';

export function rateLimits(): RateLimits {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    async take(key, perSecond, now) {
      const bucket = buckets.get(key) ?? { tokens: perSecond, at: now };
      bucket.tokens = Math.min(perSecond, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
      bucket.at = now;
      buckets.set(key, bucket);
      if (bucket.tokens < 1) return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      bucket.tokens -= 1;
      return 0;
    },
  };
}
