/**
 * The pool under a PostgreSQL store, kept off the Store object so nothing given a store (the
 * service above all) reaches past its interface: for the copy from SQLite and tests. A type
 * import only: asking for it loads no driver.
 */
import type { Store } from '../store.js';
import type { Pool } from './db.js';

const handles = new WeakMap<Store, Pool>();

export function keepPostgresHandle(store: Store, pool: Pool): Store {
  handles.set(store, pool);
  return store;
}

/** The pool of a PostgreSQL store; throws for another backend. */
export function postgresHandle(store: Store): Pool {
  const pool = handles.get(store);
  if (!pool) throw new Error(`the store at ${store.location} is not a PostgreSQL store`);
  return pool;
}
