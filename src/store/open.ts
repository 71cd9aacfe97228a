/**
 * Opens the store a `--database` URL names: `sqlite:<dir>` (the default: the data dir) or
 * `postgres://user:pass@host:port/db`. Each backend is loaded only when used, so a SQLite
 * deployment never loads `pg` and a one-shot admin command loads one driver.
 */

import { accessSync, constants } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BlobStore } from './blobs/blob-store.js';
import { localBlobStore } from './blobs/local.js';
import type { MigrationLog } from './common/migration.js';
import { redactUrl } from './common/redact.js';
import { DATABASE_FILE } from './sqlite/files.js';
import type { Store } from './store.js';

export type DatabaseTarget =
  | { engine: 'sqlite'; dir: string }
  | { engine: 'postgres'; url: string };

/** Thrown for a `--database` value that names no backend; the message says what would. */
export class DatabaseUrlError extends Error {
  override name = 'DatabaseUrlError';
}

/** What `--database` (or ROSTER_DATABASE_URL) names; with neither, the data dir's SQLite. */
export function databaseTarget(database: string | undefined, dataDir: string): DatabaseTarget {
  const value = database?.trim();
  if (!value) return { engine: 'sqlite', dir: dataDir };
  if (/^postgres(ql)?:\/\//i.test(value)) return { engine: 'postgres', url: value };
  if (/^sqlite:/i.test(value)) {
    const dir = value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!dir) throw new DatabaseUrlError(`'${value}' names no directory: use sqlite:<dir>`);
    return { engine: 'sqlite', dir: resolve(dir) };
  }
  throw new DatabaseUrlError(
    `'${redactUrl(value)}' is not a database URL Roster knows: use postgres://user:password@host:5432/db or sqlite:<dir>`,
  );
}

/** Thrown where the database is there but this user may not read it; `path` says what. */
export class DataAccessError extends Error {
  override name = 'DataAccessError';
  constructor(
    readonly path: string,
    readonly what: 'data dir' | 'database file',
    cause: unknown,
  ) {
    super(`permission denied: cannot read the ${what} ${path}`, { cause });
  }
}

const denied = (err: unknown) =>
  ['EACCES', 'EPERM'].includes((err as NodeJS.ErrnoException).code ?? '');

/**
 * Where `target` has no Roster data, as far as can be seen without opening it (a SQLite dir
 * without its database file): that place; else undefined (a database URL is taken as given).
 * A data dir or file this user may not read is a DataAccessError: its data may well be there.
 */
export function missingData(target: DatabaseTarget): string | undefined {
  if (target.engine !== 'sqlite') return undefined;
  const file = join(target.dir, DATABASE_FILE);
  try {
    accessSync(file, constants.R_OK);
    return undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return target.dir;
    if (!denied(err)) throw err;
    try {
      accessSync(target.dir, constants.R_OK | constants.X_OK);
    } catch (dirErr) {
      if (denied(dirErr)) throw new DataAccessError(target.dir, 'data dir', dirErr);
    }
    throw new DataAccessError(file, 'database file', err);
  }
}

export interface OpenOptions {
  /** Where media files go: `file:<dir>` or `s3://bucket/prefix` (default: the data dir). */
  blobs?: string;
  /** Where ROSTER_S3_ENDPOINT and the AWS settings are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** The process's own dir: the lock, local scratch, and the default home of data and blobs. */
  dataDir: string;
  target: DatabaseTarget;
  /** PostgreSQL connection pool size (default 10). */
  poolSize?: number;
  /** PostgreSQL statement timeout in ms (default 10,000); a slower statement is a 503. */
  statementTimeoutMs?: number;
  /**
   * A search with at most this many matches is read whole and sorted; with more, its page is
   * read in the order's index. Each backend has its own default, measured at 1M users; tests
   * set it to take either way.
   */
  searchSortsUpTo?: number;
  /**
   * SQLite: a search with more matches walks the order's index checking each row's words, and
   * gives up for the way above after this many rows in a read (a quarter of them first; by
   * default 25 per row the page wants: sqlite/users-list.ts wordsWalk). Tests set it to take
   * either way.
   */
  searchWalksUpTo?: number;
  /** Told as each pending migration of an existing database starts and ends. */
  onMigration?: MigrationLog;
  /** SQLite: threads that run searches beside the main one (sqlite/search-threads.ts; default 0). */
  searchThreads?: number;
  /** SQLite: told when a search thread fails. */
  onSearchTrouble?: (line: string) => void;
}

/** The blob store `--blobs` names; the data dir's files by default. */
export async function openBlobs(opts: OpenOptions): Promise<BlobStore> {
  const url = opts.blobs?.trim();
  if (!url) return localBlobStore(opts.dataDir);
  if (url.startsWith('file:')) {
    const dir = url.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (!dir) throw new DatabaseUrlError(`'${url}' names no directory: use file:<dir>`);
    return localBlobStore(resolve(dir));
  }
  if (url.startsWith('s3://')) {
    const { parseS3Url, s3BlobStore } = await import('./blobs/s3.js');
    try {
      return s3BlobStore(parseS3Url(url, opts.env ?? process.env), opts.dataDir);
    } catch (err) {
      throw new DatabaseUrlError((err as Error).message);
    }
  }
  throw new DatabaseUrlError(
    `'${url}' is not a media store Roster knows: use s3://bucket/prefix or file:<dir>`,
  );
}

export async function openStore(opts: OpenOptions): Promise<Store> {
  const blobs = await openBlobs(opts);
  if (opts.target.engine === 'sqlite') {
    const { openSqliteStore } = await import('./sqlite/store.js');
    return openSqliteStore(opts.target.dir, opts.dataDir, blobs, opts);
  }
  const { openPostgresStore } = await import('./postgres/store.js');
  return openPostgresStore(opts.target.url, opts, blobs);
}
