/**
 * Group commit for SQLite. With `synchronous = FULL` every commit is a write of its pages to the
 * WAL and an fsync; a write's own statements cost little beside that, and an event row adds
 * pages (its table and indexes) to every commit. Writes that arrive in one turn of the event
 * loop are therefore run together at its end: one `BEGIN IMMEDIATE`, each write in a savepoint
 * of its own (one that throws is rolled back alone and rejects alone), one `COMMIT`, and only
 * then is any write's promise settled. Nothing is acknowledged before it is durable, as before.
 *
 * Why this is safe with a synchronous driver: the whole batch, from BEGIN to COMMIT, runs in one
 * callback, so no other code (a read, a request, a worker) can run in between and see a write
 * that is not committed yet. The cost is the wait for the end of the loop's turn: a write queued
 * alone runs at once in the check phase, before any timer.
 */
import type { Db } from './db.js';

interface Pending {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommit {
  <T>(write: () => T): Promise<T>;
  /** Commits what is queued now, before the end of the turn (the store's close). */
  flush(): void;
}

/** At most this many writes in one transaction: a long queue is committed in several. */
export const MAX_GROUP = 64;

export function groupCommit(db: Db): GroupCommit {
  let queue: Pending[] = [];
  let scheduled = false;

  function flush() {
    scheduled = false;
    const batch = queue;
    queue = [];
    let next = 0;
    while (next < batch.length) next = commitFrom(batch, next);
  }

  /** Runs writes from `start` in one transaction until the batch ends or SQLite drops it. */
  function commitFrom(batch: Pending[], start: number): number {
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      for (const w of batch.slice(start)) w.reject(err);
      return batch.length;
    }
    const done: { w: Pending; value: unknown }[] = [];
    const end = Math.min(batch.length, start + MAX_GROUP);
    let i = start;
    for (; i < end; i++) {
      const w = batch[i]!;
      try {
        done.push({ w, value: db.transaction(w.run)() });
      } catch (err) {
        w.reject(err);
        // SQLite rolls a whole transaction back on some errors (a full disk, an I/O error):
        // the writes before this one in the batch are gone with it.
        if (!db.inTransaction) {
          for (const d of done) d.w.reject(err);
          return i + 1;
        }
      }
    }
    try {
      db.exec('COMMIT');
    } catch (err) {
      try {
        if (db.inTransaction) db.exec('ROLLBACK');
      } catch {
        // The connection lost the transaction itself; nothing of it was committed either way.
      }
      for (const d of done) d.w.reject(err);
      return i;
    }
    for (const d of done) d.w.resolve(d.value);
    return i;
  }

  let immediate: NodeJS.Immediate | undefined;
  const write = <T>(run: () => T) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (!scheduled) {
        scheduled = true;
        immediate = setImmediate(flush);
      }
    });
  return Object.assign(write, {
    flush() {
      if (!scheduled) return;
      clearImmediate(immediate);
      flush();
    },
  });
}
