/** Rate-limit buckets in PostgreSQL: one UNLOGGED table shared by every replica. */
import type { RateLimits } from '../store.js';
import { type Pool, query } from './db.js';

export function rateLimits(pool: Pool): RateLimits {
  return {
    // One statement: refill by the time passed, then take one if there is one. `allowed`
    // records which happened, so the answer needs no second read.
    async take(key, perSecond, now) {
      const refill = `LEAST($2::float8, b.tokens + GREATEST(0, $3 - b.at) / 1000.0 * $2::float8)`;
      const { rows } = await query<{ tokens: number; allowed: boolean }>(
        pool,
        `INSERT INTO rate_buckets AS b (key, tokens, at, allowed)
         VALUES ($1, CASE WHEN $2::float8 >= 1 THEN $2::float8 - 1 ELSE $2::float8 END, $3, $2::float8 >= 1)
         ON CONFLICT (key) DO UPDATE SET
           tokens = ${refill} - CASE WHEN ${refill} >= 1 THEN 1 ELSE 0 END,
           at = GREATEST(b.at, $3),
           allowed = ${refill} >= 1
         RETURNING tokens, allowed`,
        [key, perSecond, now],
      );
      const { tokens, allowed } = rows[0]!;
      return allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perSecond));
    },
  };
}
