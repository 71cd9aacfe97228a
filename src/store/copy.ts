/**
 * Moving and keeping data: an online backup of a SQLite data dir, and a copy of one into
 * PostgreSQL that keeps every id (tokens, users and media stay valid), can be run again to
 * resume or to pick up what changed since, and verifies the counts at the end. The media files
 * go along into an object store the same way.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, createWriteStream, renameSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import Database from 'better-sqlite3';
import type { BlobStore } from './blobs/blob-store.js';
import type { Pool } from './postgres/db.js';
import { postgresHandle } from './postgres/handle.js';
import type { Db } from './sqlite/db.js';
import { sqliteHandle } from './sqlite/handle.js';
import type { Store } from './store.js';

/** Raised when a copy or backup cannot go on; the message says why and what to do. */
export class CopyError extends Error {
  override name = 'CopyError';
}

/**
 * Writes a consistent copy of the store's database to `to` with SQLite's online backup API:
 * safe while `serve` writes (copying a live WAL database's file is not). The copy appears only
 * once whole and checked, with mode 0600.
 */
export async function backupSqlite(
  store: Store,
  to: string,
  progress: (done: number, total: number) => void = () => {},
): Promise<{
  bytes: number /** Live users (a removed one is a row with status deleted). */;
  users: number;
  media: number;
}> {
  const temp = join(dirname(to), `.${randomBytes(6).toString('hex')}.roster-backup.tmp`);
  try {
    await sqliteHandle(store).backup(temp, {
      progress: ({ totalPages, remainingPages }) => {
        progress(totalPages - remainingPages, totalPages);
        return 256;
      },
    });
    chmodSync(temp, 0o600);
    const check = new Database(temp, { readonly: true });
    try {
      const ok = check.pragma('quick_check', { simple: true });
      if (ok !== 'ok') throw new CopyError(`the backup failed its check: ${ok}`);
      const count = (table: string, where = '') =>
        (check.prepare(`SELECT count(*) AS n FROM ${table} ${where}`).get() as { n: number }).n;
      const pages = check.pragma('page_count', { simple: true }) as number;
      const pageSize = check.pragma('page_size', { simple: true }) as number;
      const result = {
        bytes: pages * pageSize,
        users: count('users', "WHERE status <> 'deleted'"),
        media: count('media'),
      };
      check.close();
      renameSync(temp, to);
      return result;
    } finally {
      if (check.open) check.close();
    }
  } finally {
    rmSync(temp, { force: true });
  }
}

/** The tables in the order their references need, with the key a re-run skips by. */
// Users are never deleted (a removed user is a status); media rows and delivered messages are,
// so a later run removes theirs from the database too.
const TABLES = [
  { name: 'tenants', key: 'id', identity: true },
  { name: 'branches', key: 'id', identity: true },
  { name: 'tokens', key: 'id', identity: false, textKey: true },
  { name: 'users', key: 'rowid', identity: true },
  { name: 'media', key: 'rowid', identity: true, deletes: true },
  { name: 'meta', key: 'key', identity: false, textKey: true },
  { name: 'outbox', key: 'id', identity: true, deletes: true },
] as const;

export type CopyProgress = (table: string, copied: number, total: number) => void;

const BATCH = 500;

/**
 * Copies every row of a SQLite store into a PostgreSQL store, keeping ids. A row already there
 * (by key) is brought up to date, and rows the source has deleted since an earlier run go, so
 * running it again resumes an interrupted copy or catches up with what changed. The target must
 * be empty or an earlier copy of this same source: other data there is refused, not merged.
 */
export async function copySqliteToPostgres(
  source: Store,
  target: Store,
  progress: CopyProgress = () => {},
): Promise<Record<string, number>> {
  const db = sqliteHandle(source);
  const pool = postgresHandle(target);
  await checkTargetIsOurs(db, pool);
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const columns = (
      db.prepare(`SELECT name FROM pragma_table_info('${table.name}')`).all() as {
        name: string;
      }[]
    ).map((c) => c.name);
    const total = (db.prepare(`SELECT count(*) AS n FROM ${table.name}`).get() as { n: number }).n;
    const read = db.prepare(
      `SELECT * FROM ${table.name} WHERE ${table.key} > ? ORDER BY ${table.key} LIMIT ${BATCH}`,
    );
    const quoted = columns.map((c) => `"${c}"`).join(', ');
    const updates = columns
      .filter((c) => c !== table.key)
      .map((c) => `"${c}" = EXCLUDED."${c}"`)
      .join(', ');
    let after: string | number = 'textKey' in table ? '' : -1;
    let copied = 0;
    for (;;) {
      const rows = read.all(after) as Record<string, unknown>[];
      if (rows.length === 0) break;
      const values: unknown[] = [];
      const tuples = rows.map((row) => {
        const start = values.length;
        for (const c of columns) values.push(row[c]);
        return `(${columns.map((_, i) => `$${start + i + 1}`).join(', ')})`;
      });
      await pool.query(
        `INSERT INTO ${table.name} (${quoted}) ${table.identity ? 'OVERRIDING SYSTEM VALUE' : ''}
         VALUES ${tuples.join(', ')} ON CONFLICT (${table.key}) DO UPDATE SET ${updates}`,
        values,
      );
      copied += rows.length;
      after = rows.at(-1)![table.key] as string | number;
      progress(table.name, copied, total);
    }
    if ('deletes' in table) {
      const keys = db.prepare(`SELECT ${table.key} FROM ${table.name}`).pluck().all();
      await pool.query(`DELETE FROM ${table.name} WHERE NOT (${table.key} = ANY($1))`, [keys]);
    }
    if (table.identity) {
      // New rows made by `serve` on PostgreSQL continue after the copied ids.
      await pool.query(
        `SELECT setval(pg_get_serial_sequence('${table.name}', '${table.key}'),
                       coalesce((SELECT max(${table.key}) FROM ${table.name}), 0) + 1, false)`,
      );
    }
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${table.name}`);
    if (rows[0]!.n !== total) {
      throw new CopyError(
        `${table.name}: ${total} rows in the data dir but ${rows[0]!.n} in the database after the copy; something wrote meanwhile (stop serve on both sides and run the copy again)`,
      );
    }
    counts[table.name] = total;
  }
  return counts;
}

/** The target is empty, or holds this source's signing secret (an earlier copy of it). */
async function checkTargetIsOurs(db: Db, pool: Pool) {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*) AS n FROM tenants');
  if (rows[0]!.n === 0) return;
  const read = "SELECT value FROM meta WHERE key = 'cdn.signing-secret'";
  const mine = (db.prepare(read).get() as { value: string } | undefined)?.value;
  const theirs = (await pool.query<{ value: string }>(read)).rows[0]?.value;
  if (!mine || mine !== theirs) {
    throw new CopyError(
      'the database already holds other Roster data (it was not copied from this data dir); copy into an empty database',
    );
  }
}

/**
 * Copies every file of one blob store into another (a data dir's files into a bucket), streamed
 * through the target's scratch, so no file is ever whole in memory. A file already there with
 * the same size is skipped, so a re-run resumes; the target's other files are left alone (a
 * bucket may hold more than this deployment). Verifies at the end that every file is there.
 */
export async function copyBlobs(
  from: BlobStore,
  to: BlobStore,
  progress: (copied: number, skipped: number) => void = () => {},
): Promise<{ files: number; copied: number; bytes: number }> {
  const scratch = dirname(to.tempPath());
  await mkdir(scratch, { recursive: true, mode: 0o700 });
  let files = 0;
  let copied = 0;
  let bytes = 0;
  for await (const key of from.keys()) {
    files++;
    const size = (await from.stat(key))?.size;
    if (size === undefined) continue;
    if ((await to.stat(key))?.size !== size) {
      const temp = to.tempPath();
      try {
        await pipeline(await from.get(key), createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
        await to.put(key, temp);
      } finally {
        await to.discardTemp(temp);
      }
      copied++;
      bytes += size;
    }
    progress(copied, files - copied);
  }
  for await (const key of from.keys()) {
    const want = (await from.stat(key))?.size;
    if (want !== undefined && (await to.stat(key))?.size !== want) {
      throw new CopyError(
        `media file ${key} is not in ${(await to.inspectRoot()).where} after the copy; something wrote meanwhile (stop serve and run the copy again)`,
      );
    }
  }
  return { files, copied, bytes };
}
