/**
 * Opens the SQLite database of a data dir: pragmas set on every open (durability is not left to
 * library defaults) and forward-only migrations recorded in `user_version`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  type MigrationLog,
  migrationDone,
  migrationFailed,
  migrationProgress,
  migrationStarting,
  upgradeLog,
} from '../common/migration.js';
import { DATABASE_FILE } from './files.js';
import { MIGRATION_NAMES, MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export { DATABASE_FILE } from './files.js';

/**
 * SQLite keeps 2 MiB of pages by default: at 100,000 users a random GET by id misses it and
 * reads pages through a syscall each. 64 MiB (a bound, taken only as pages are read) holds the
 * users table and its indexes there (GET by id before and after: bench/README.md, "Figures from
 * src/ comments"). mmap_size did as well but turns an I/O error into a SIGBUS.
 */
const PAGE_CACHE = 'PRAGMA cache_size = -65536';

export function openDatabase(dataDir: string, onMigration?: MigrationLog): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, DATABASE_FILE));
  // exec, not pragma(): no statement object is left for the garbage collector. On Node 24 a
  // better-sqlite3 statement collected while no JavaScript context is entered aborts the
  // process (node::ObjectWrap's destructor: "Assertion failed: (env) != nullptr"); seen in
  // serve's start-up. Every statement of a store lives as long as the store.
  db.exec('PRAGMA journal_mode = WAL');
  // better-sqlite3 reopens WAL databases with synchronous=NORMAL, which can lose acknowledged
  // writes on power loss; FULL makes every acknowledged commit durable.
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec(PAGE_CACHE);
  migrate(db, onMigration);
  return db;
}

/**
 * A second connection to an open database (its file), for reading only: a search thread's
 * (search-threads.ts). `query_only` makes a write through it an error, not a change that would
 * bypass the store's group commit. WAL lets it read beside the store's writes; it sees what
 * they committed.
 */
export function openReader(file: string): Db {
  const db = new Database(file, { fileMustExist: true });
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec(PAGE_CACHE);
  db.exec('PRAGMA query_only = ON');
  return db;
}

/**
 * Statements by their text, each prepared once and kept as long as its database (see the exec
 * note in openDatabase); `raw` ones give rows as arrays of values.
 */
export function statementCache(db: Db) {
  const statements = new Map<string, ReturnType<Db['prepare']>>();
  return (sql: string, raw = false) => {
    const key = raw ? `raw:${sql}` : sql;
    let stmt = statements.get(key);
    if (!stmt) {
      stmt = db.prepare(sql);
      if (raw) stmt.raw();
      statements.set(key, stmt);
    }
    return stmt;
  };
}

/**
 * Statements made while opening, kept as long as their database: none is left for the garbage
 * collector to finalize (see the exec note above).
 */
const kept = new WeakMap<Db, unknown[]>();

function migrate(db: Db, log?: MigrationLog) {
  const userVersion = db.prepare('PRAGMA user_version').pluck();
  kept.set(db, [userVersion]);
  const current = userVersion.get() as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `the database schema (version ${current}) is newer than this roster (${MIGRATIONS.length}): upgrade roster`,
    );
  }
  const tell = upgradeLog(current, log);
  for (let v = current; v < MIGRATIONS.length; v++) {
    const started = performance.now();
    tell(migrationStarting(v + 1, MIGRATIONS.length, MIGRATION_NAMES[v]!));
    try {
      db.transaction(() => {
        const migration = MIGRATIONS[v]!;
        if (typeof migration === 'string') db.exec(migration);
        else
          kept
            .get(db)!
            .push(
              ...migration(db, (done, total) =>
                tell(migrationProgress(v + 1, MIGRATIONS.length, done, total)),
              ),
            );
        db.exec(`PRAGMA user_version = ${v + 1}`);
      }).immediate();
    } catch (err) {
      throw new Error(migrationFailed(v + 1, MIGRATIONS.length, db.name, (err as Error).message), {
        cause: err,
      });
    }
    tell(migrationDone(v + 1, MIGRATIONS.length, performance.now() - started));
  }
}
