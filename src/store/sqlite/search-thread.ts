/**
 * A search thread's body (search-threads.ts starts it): the same users list the store runs, on a
 * connection of its own that only reads. One search at a time; its page, or its error, goes back
 * with the number it came with.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ListFilter, UserPage } from '../types.js';
import { openReader, statementCache } from './db.js';
import { snapshotList } from './users-list.js';

/** What a thread is started with. */
export interface SearchThreadData {
  /** The database file (the store's connection's name). */
  file: string;
  fewMatches: number;
  walkBudget?: number;
}

/** A search asked of a thread (or its end: it closes its connection and exits), and its answer. */
export type SearchAsk = { id: number; filter: ListFilter } | { close: true };
export type SearchAnswer =
  | { ready: true }
  | { id: number; page: UserPage }
  | { id: number; error: { message: string; code?: string } };

const port = parentPort!;
const { file, fewMatches, walkBudget } = workerData as SearchThreadData;
const db = openReader(file);
const cached = statementCache(db);
const list = snapshotList(db, (sql) => cached(sql, true), fewMatches, walkBudget);

const answer = (a: SearchAnswer) => port.postMessage(a);
port.on('message', (ask: SearchAsk) => {
  if ('close' in ask) {
    db.close();
    port.close();
    return;
  }
  const { id, filter } = ask;
  try {
    answer({ id, page: list(filter) });
  } catch (err) {
    const e = err as { message?: string; code?: unknown };
    answer({
      id,
      error: {
        message: String(e?.message ?? err),
        ...(typeof e?.code === 'string' ? { code: e.code } : {}),
      },
    });
  }
});
answer({ ready: true });
