/**
 * Opens the SQLite database of a data dir: pragmas set on every open (durability is not left to
 * library defaults) and forward-only migrations recorded in `user_version`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export const DATABASE_FILE = 'roster.db';

export function openDatabase(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, DATABASE_FILE));
  // exec, not pragma(): no statement object is left for the garbage collector (better-sqlite3
  // 12 on Node 24 can abort when one is collected at an unlucky moment; see .ci/run).
  db.exec('PRAGMA journal_mode = WAL');
  // better-sqlite3 reopens WAL databases with synchronous=NORMAL, which can lose acknowledged
  // writes on power loss; FULL makes every acknowledged commit durable.
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA foreign_keys = ON');
  migrate(db);
  return db;
}

function migrate(db: Db) {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `the database schema (version ${current}) is newer than this roster (${MIGRATIONS.length}): upgrade roster`,
    );
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}
