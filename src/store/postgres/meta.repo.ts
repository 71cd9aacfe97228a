/** The meta table in PostgreSQL: settings every replica shares, such as the CDN signing secret. */
import type { MetaRepo } from '../store.js';
import { type Pool, query } from './db.js';

export function metaRepo(pool: Pool): MetaRepo {
  return {
    async getOrCreate(key, make) {
      const read = async () =>
        (await query<{ value: string }>(pool, 'SELECT value FROM meta WHERE key = $1', [key]))
          .rows[0]?.value;
      const existing = await read();
      if (existing !== undefined) return existing;
      // First writer wins: every replica then signs with the one stored secret.
      await query(
        pool,
        'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
        [key, make()],
      );
      return (await read())!;
    },
  };
}
