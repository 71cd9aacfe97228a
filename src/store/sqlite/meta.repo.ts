/** The meta table: small per-data-dir settings, such as the CDN signing secret. */
import type { Db } from './db.js';

export function metaRepo(db: Db) {
  const get = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  const insert = db.prepare<[string, string]>(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING',
  );
  return {
    get: (key: string): string | undefined => get.get(key)?.value,
    /** The value under `key`, created with `make()` on first use (first writer wins). */
    getOrCreate(key: string, make: () => string): string {
      return db
        .transaction(() => {
          const existing = get.get(key);
          if (existing) return existing.value;
          insert.run(key, make());
          return get.get(key)!.value;
        })
        .immediate();
    },
  };
}
