/**
 * A data dir whose data moved into a database (copied, then served from there) keeps its old
 * SQLite file, which no longer holds the deployment's data: a `serve` or an admin command on it
 * would answer stale users and make tokens nobody's service knows. `serve` on the database
 * leaves a mark in the data dir it was copied from; SQLite use of a marked data dir is refused
 * (local-store.ts), and removing the mark is the way back.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SIGNING_SECRET_KEY } from '../common/meta-keys.js';
import { redactUrl } from '../common/redact.js';
import { DATABASE_FILE } from '../sqlite/files.js';
import type { Store } from '../store.js';

export const MOVED_FILE = 'moved-to-database.json';

/** The marked data dir's database (its URL without the password), or undefined. */
export function movedTo(dir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, MOVED_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const { database } = JSON.parse(text) as { database?: unknown };
    if (typeof database === 'string') return redactUrl(database);
  } catch {}
  // A mark that cannot be read is still a mark: the data dir moved somewhere.
  return 'a database (see the mark)';
}

/**
 * After `serve` started on a PostgreSQL `store` with `dataDir` as its own dir: when that data
 * dir's SQLite is the one the database was copied from (the same signing secret), mark it as
 * moved. Says whether it did.
 */
export async function markIfMoved(dataDir: string, store: Store): Promise<boolean> {
  if (store.engine !== 'postgres' || !existsSync(join(dataDir, DATABASE_FILE))) return false;
  const { postgresHandle } = await import('../postgres/handle.js');
  const read = 'SELECT value FROM meta WHERE key = $1';
  const theirs = (await postgresHandle(store).query<{ value: string }>(read, [SIGNING_SECRET_KEY]))
    .rows[0]?.value;
  const mine = await sqliteSecret(join(dataDir, DATABASE_FILE), SIGNING_SECRET_KEY);
  if (!theirs || mine !== theirs) return false;
  const file = join(dataDir, MOVED_FILE);
  const temp = `${file}.tmp`;
  writeFileSync(
    temp,
    `${JSON.stringify({ database: store.location, at: new Date().toISOString() })}\n`,
    { mode: 0o600 },
  );
  renameSync(temp, file);
  return true;
}

/** The signing secret in a SQLite database file, read only; undefined when it cannot be read. */
async function sqliteSecret(file: string, key: string): Promise<string | undefined> {
  const { default: Database } = await import('better-sqlite3');
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string })
        ?.value;
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}
