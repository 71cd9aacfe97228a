/**
 * Local admin commands act on the store directly (a data dir's SQLite, or the PostgreSQL that
 * `--database` / ROSTER_DATABASE_URL names): open it, run, close.
 */
import { join } from 'node:path';
import type { OpenOptions } from '../store/open.js';
import type { Store } from '../store/store.js';
import { type Deps, note } from './context.js';
import { CliError, usageError } from './errors.js';
import { dataDirOf } from './paths.js';

/** Where the store is: `--data` (the data dir), `--database` and `--blobs` (URLs that move it). */
export interface StoreOptions {
  data?: string;
  database?: string;
  blobs?: string;
}

/**
 * The database the options and environment name, as `serve` chooses it: `--database`, else
 * ROSTER_DATABASE_URL, else the data dir's SQLite. Every local command that reads or writes the
 * store asks this, so none of them can pick another database than serve.
 */
export async function targetOf(opts: StoreOptions, deps: Deps) {
  const dataDir = dataDirOf(opts.data, deps.env);
  const { databaseTarget, DatabaseUrlError } = await import('../store/open.js');
  try {
    return {
      dataDir,
      target: databaseTarget(opts.database ?? deps.env.ROSTER_DATABASE_URL, dataDir),
    };
  } catch (err) {
    if (err instanceof DatabaseUrlError) throw usageError(`--database: ${err.message}`);
    throw err;
  }
}

/** Opens the store the options and environment name, creating it if new; the caller closes it. */
export async function openLocalStore(
  opts: StoreOptions,
  deps: Deps,
  tuning: Pick<
    OpenOptions,
    'poolSize' | 'statementTimeoutMs' | 'onMigration' | 'searchThreads' | 'onSearchTrouble'
  > = {},
): Promise<Store> {
  const { dataDir, target } = await targetOf(opts, deps);
  if (target.engine === 'sqlite') await refuseMoved(target.dir);
  const { openStore } = await import('../store/open.js');
  const blobs = opts.blobs ?? (deps.env.ROSTER_BLOBS_URL || undefined);
  return openStore({ dataDir, target, blobs, env: deps.env, ...tuning }).catch((err: Error) => {
    if (err.name === 'DatabaseUrlError') throw usageError(`--blobs: ${err.message}`);
    if (err.name === 'DatabaseSetupError') throw new CliError(err.message);
    throw err;
  });
}

/**
 * A data dir served from the database it was copied into (store/data-dir/moved.ts) is not
 * opened as SQLite: its file holds the data as it was at the move. The URL is shown without its
 * password; the mark's removal is the way back.
 */
async function refuseMoved(dir: string) {
  const { MOVED_FILE, movedTo } = await import('../store/data-dir/moved.js');
  const database = movedTo(dir);
  if (database === undefined) return;
  throw new CliError(
    `this data dir moved to ${database}: its SQLite is no longer the deployment's data; pass --database <that URL> (or set ROSTER_DATABASE_URL). To use the SQLite anyway (its data as it was at the move), remove ${join(dir, MOVED_FILE)}`,
  );
}

/**
 * Opens an existing store (a data dir `serve` made, or a database), runs `fn`, closes it. A
 * SQLite data dir that does not exist is an error, not a new empty one.
 */
export async function withStore<T>(
  opts: StoreOptions,
  deps: Deps,
  fn: (store: Store) => T | Promise<T>,
): Promise<T> {
  const { target } = await targetOf(opts, deps);
  const { missingData, DataAccessError } = await import('../store/open.js');
  let missing: string | undefined;
  try {
    missing = missingData(target);
  } catch (err) {
    if (!(err instanceof DataAccessError)) throw err;
    throw new CliError(`${err.message}; run as its owner, or give --data a data dir you can read`);
  }
  if (missing !== undefined) {
    throw new CliError(
      `no Roster data in ${missing}: start \`roster serve --data ${missing}\` once to create it`,
    );
  }
  const store = await openLocalStore(opts, deps);
  for (const w of store.permissionWarnings) note(deps.io, `warning: ${w}`);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
