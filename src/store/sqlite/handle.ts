/**
 * The connection under a SQLite store, kept off the Store object so nothing given a store (the
 * service above all) reaches past its interface: for the backup, the copy to PostgreSQL and
 * tests. A type import only: asking for it loads no driver.
 */
import type { Store } from '../store.js';
import type { Db } from './db.js';
import type { SearchThreads } from './search-threads.js';

const handles = new WeakMap<Store, Db>();

export function keepSqliteHandle(store: Store, db: Db): Store {
  handles.set(store, db);
  return store;
}

/** The connection of a SQLite store; throws for another backend. */
export function sqliteHandle(store: Store): Db {
  const db = handles.get(store);
  if (!db) throw new Error(`the store at ${store.location} is not a SQLite store`);
  return db;
}

const searching = new WeakMap<Store, SearchThreads>();

export function keepSearchThreads(store: Store, threads: SearchThreads | undefined): Store {
  if (threads) searching.set(store, threads);
  return store;
}

/** A SQLite store's search threads (for tests); undefined when it has none. */
export const searchThreadsOf = (store: Store): SearchThreads | undefined => searching.get(store);
