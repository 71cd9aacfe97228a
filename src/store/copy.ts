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
import { SIGNING_SECRET_KEY } from './common/meta-keys.js';
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
  // `words` is SQLite's own (each user's full-text tokens, migration 20): PostgreSQL has its tsvector.
  { name: 'users', key: 'rowid', identity: true, sqliteOnly: ['words'] },
  { name: 'media', key: 'rowid', identity: true, deletes: true },
  { name: 'meta', key: 'key', identity: false, textKey: true },
  { name: 'outbox', key: 'id', identity: true, deletes: true },
  // Pruned events go from the copy too; new ones continue after the copied sequences.
  { name: 'events', key: 'sequence', identity: true, deletes: true },
  // Endpoints' cursors are event sequences, copied as they are; removed endpoints go too.
  { name: 'webhooks', key: 'id', identity: false, textKey: true, deletes: true },
  { name: 'webhook_deliveries', key: 'id', identity: false, textKey: true, deletes: true },
] as const;

export type CopyProgress = (table: string, copied: number, total: number) => void;

const BATCH = 500;
/** Source keys compared per DELETE when removing what the source deleted since a copy. */
const KEYS_PER_DELETE = 10_000;

/** The highest id an AUTOINCREMENT table of the data dir ever gave (0 for any other table). */
function everGiven(db: ReturnType<typeof sqliteHandle>, table: string): number {
  const tracked = db
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'`)
    .get();
  if (!tracked) return 0;
  const seq = db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get(table);
  return typeof seq === 'number' ? seq : 0;
}

/**
 * Deletes the target's rows whose (integer) key the source no longer has, one key range at a
 * time: each DELETE covers the range of the next `chunk` source keys, so memory and each
 * statement stay small however many rows the table holds (a year of events is millions; one
 * array of every key was their size in memory and a slow `NOT = ANY` over the whole table).
 */
async function removeGone(
  db: ReturnType<typeof sqliteHandle>,
  pool: ReturnType<typeof postgresHandle>,
  table: string,
  key: string,
  chunk: number,
): Promise<void> {
  const next = db
    .prepare(`SELECT ${key} FROM ${table} WHERE ${key} > ? ORDER BY ${key} LIMIT ${chunk}`)
    .pluck();
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const keys = next.all(after) as number[];
    const last = keys.length < chunk ? undefined : keys.at(-1)!;
    await pool.query(
      `DELETE FROM ${table} WHERE ${key} > $1 ${last === undefined ? '' : `AND ${key} <= $3`}
         AND NOT (${key} = ANY($2))`,
      last === undefined ? [after, keys] : [after, keys, last],
    );
    if (last === undefined) return;
    after = last;
  }
}

/**
 * Copies every row of a SQLite store into a PostgreSQL store, keeping ids. A row already there
 * (by key) is brought up to date, and rows the source has deleted since an earlier run go, so
 * running it again resumes an interrupted copy or catches up with what changed. The target must
 * be empty or an earlier copy of this same source that nothing else wrote to since: other data
 * there, or writes served from it, are refused before anything is written, not merged.
 */
export async function copySqliteToPostgres(
  source: Store,
  target: Store,
  progress: CopyProgress = () => {},
  { keysPerDelete = KEYS_PER_DELETE }: { keysPerDelete?: number } = {},
): Promise<Record<string, number>> {
  const db = sqliteHandle(source);
  const pool = postgresHandle(target);
  if (!(await checkTargetIsOurs(db, pool))) await checkNoWritesSince(pool);
  // Marked before the first row: an interrupted copy is resumed, never taken for a database
  // that wrote on its own since.
  await setMark(pool, { state: 'copying' });
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const sqliteOnly: readonly string[] = 'sqliteOnly' in table ? table.sqliteOnly : [];
    const columns = (
      db.prepare(`SELECT name FROM pragma_table_info('${table.name}')`).all() as {
        name: string;
      }[]
    )
      .map((c) => c.name)
      .filter((c) => !sqliteOnly.includes(c));
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
    if ('deletes' in table) await removeGone(db, pool, table.name, table.key, keysPerDelete);
    if (table.identity) {
      // New rows made by `serve` on PostgreSQL continue after the copied ids, and after every
      // id the data dir ever gave: an AUTOINCREMENT table (events) never gives one twice, even
      // when its newest rows were deleted, and a follower's cursor counts on that.
      await pool.query(
        `SELECT setval(pg_get_serial_sequence('${table.name}', '${table.key}'),
                       greatest(coalesce((SELECT max(${table.key}) FROM ${table.name}), 0), $1) + 1,
                       false)`,
        [everGiven(db, table.name)],
      );
    }
    // The copy's own mark (meta) is the database's, not a row of the data dir's.
    const own = table.name === 'meta' ? ` WHERE key <> '${MARK_KEY}'` : '';
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*) AS n FROM ${table.name}${own}`,
    );
    if (rows[0]!.n !== total) {
      throw new CopyError(
        `${table.name}: ${total} rows in the data dir but ${rows[0]!.n} in the database after the copy; something wrote meanwhile: stop serve on the data dir and run the copy again (never while serve runs on the database: the copy would overwrite what it wrote)`,
      );
    }
    counts[table.name] = total;
  }
  await setMark(pool, { state: 'copied', writes: await writesMark(pool) });
  return counts;
}

/**
 * Where the last copy stands, in the database's meta table (the data dir's meta has no such
 * key, so copying meta never overwrites it): `copying` from the first row written until the
 * counts are verified, then `copied` with the database's write mark at that moment.
 */
const MARK_KEY = 'copy.mark';
type Mark = { state: 'copying' } | { state: 'copied'; writes: string };

async function setMark(pool: Pool, mark: Mark) {
  await pool.query(
    'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value',
    [MARK_KEY, JSON.stringify(mark)],
  );
}

/**
 * What any write to the database's data moves: tenants, branches and tokens move the
 * credentials epoch (a trigger), each write to a user its version, and a new user, medium or
 * invitation its table's count and last row; a removed medium the count, a delivered invitation
 * its attempts or its row. Every change also writes an event (a webhook's too: added, rotated,
 * removed, which touch none of the above), and the worker's deliveries move their attempts. A
 * serve that only reads moves none of them.
 */
async function writesMark(pool: Pool): Promise<string> {
  const { rows } = await pool.query(
    `SELECT (SELECT value FROM credentials_epoch) AS credentials,
            (SELECT concat_ws(':', count(*), sum(version), max(rowid), max(updated_at)) FROM users) AS users,
            (SELECT concat_ws(':', count(*), max(rowid)) FROM media) AS media,
            (SELECT concat_ws(':', count(*), max(id), sum(attempts)) FROM outbox) AS outbox,
            (SELECT concat_ws(':', count(*), max(sequence)) FROM events) AS events,
            (SELECT concat_ws(':', count(*), max(updated_at)) FROM webhooks) AS webhooks,
            (SELECT concat_ws(':', count(*), sum(attempts)) FROM webhook_deliveries) AS deliveries,
            (SELECT sum(retries) FROM webhook_deliveries) AS retries`,
  );
  return JSON.stringify(rows[0]);
}

/**
 * Whether nothing the mark `then` measured has moved since: the parts it has only, so a mark a
 * release with fewer parts wrote still lets a copy resume after an upgrade.
 */
function sameWrites(then: string, now: string): boolean {
  const before = JSON.parse(then) as Record<string, unknown>;
  const after = JSON.parse(now) as Record<string, unknown>;
  return Object.keys(before).every((part) => before[part] === after[part]);
}

/**
 * A database copied before may be copied into again only while nothing but the copy wrote to
 * it: a copy overwrites every row it has, so writes served from the database since (a changed
 * department, a removed user, a new one) would be reverted. Checked before anything is written.
 */
async function checkNoWritesSince(pool: Pool) {
  const value = (
    await pool.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [MARK_KEY])
  ).rows[0]?.value;
  // No mark: copied by a Roster before marks; `copying`: a copy that did not finish. Both resume.
  const mark = value === undefined ? undefined : (JSON.parse(value) as Mark);
  if (mark?.state !== 'copied' || sameWrites(mark.writes, await writesMark(pool))) return;
  throw new CopyError(
    'the database has writes the data dir does not have (serve ran on it since the last copy): a copy would revert them, so nothing was copied. Serve from the database from now on; to start over from the data dir, copy into an empty database',
  );
}

/**
 * The target is empty (true), or holds this source's signing secret (false: an earlier copy of
 * it); anything else is refused.
 */
async function checkTargetIsOurs(db: Db, pool: Pool): Promise<boolean> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*) AS n FROM tenants');
  if (rows[0]!.n === 0) return true;
  const read = `SELECT value FROM meta WHERE key = '${SIGNING_SECRET_KEY}'`;
  const mine = (db.prepare(read).get() as { value: string } | undefined)?.value;
  const theirs = (await pool.query<{ value: string }>(read)).rows[0]?.value;
  if (!mine || mine !== theirs) {
    throw new CopyError(
      'the database already holds other Roster data (it was not copied from this data dir); copy into an empty database',
    );
  }
  return false;
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
