/**
 * The driver handle under a store, kept off the Store object so nothing that is given a store
 * (the service above all) can reach past its interface. For the backup, the SQLite → PostgreSQL
 * copy, and tests. Type imports only: asking for a handle loads no driver.
 */
import type { Pool } from './postgres/db.js';
import type { Db } from './sqlite/db.js';
import type { Store } from './store.js';

const sqlite = new WeakMap<Store, Db>();
const postgres = new WeakMap<Store, Pool>();

export function keepSqliteHandle<S extends Store>(store: S, db: Db): S {
  sqlite.set(store, db);
  return store;
}

export function keepPostgresHandle<S extends Store>(store: S, pool: Pool): S {
  postgres.set(store, pool);
  return store;
}

/** The connection of a SQLite store; throws for another backend. */
export function sqliteHandle(store: Store): Db {
  const db = sqlite.get(store);
  if (!db) throw new Error(`the store at ${store.location} is not a SQLite store`);
  return db;
}

/** The pool of a PostgreSQL store; throws for another backend. */
export function postgresHandle(store: Store): Pool {
  const pool = postgres.get(store);
  if (!pool) throw new Error(`the store at ${store.location} is not a PostgreSQL store`);
  return pool;
}
