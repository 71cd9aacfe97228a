/**
 * SQLite searches on threads of their own. better-sqlite3 runs a statement to its end on the
 * thread that asked, so in the main thread a search (5–50 ms at 1M users) stalls every other
 * request, and two searches at once take turns: with two in flight the million harness's p99
 * was about twice the p99 of one alone (bench/HISTORY.md, "SQLite searches on threads"). Each
 * thread has a connection of its own that only reads (db.ts openReader). WAL lets it read beside
 * the store's writes and the other threads, and a search sees what was committed when it began,
 * as it would in the main thread: writes are answered only once committed (group-commit.ts), so a
 * client that wrote and then searches finds its write.
 *
 * Only searches come here: a page without a query costs the main thread a few ms, about what
 * copying a 1,000-user page between threads would. The threads start with the first search, which
 * runs in the main thread meanwhile, as does any search while no thread is ready. A thread that
 * fails (its code, its connection, its exit) hands its search back to the main thread and is
 * started again by the next search; after MAX_FAILURES in a row none is.
 */
import { Worker } from 'node:worker_threads';
import type { ListFilter, UserPage } from '../types.js';
import type { SearchAnswer, SearchThreadData } from './search-thread.js';

export interface SearchThreads {
  list(filter: ListFilter): Promise<UserPage>;
  /**
   * Starts the threads if they are not, and tells once one is ready (true), or once none will be
   * (false: closed, or MAX_FAILURES).
   */
  ready(): Promise<boolean>;
  /** Threads started so far, replacements included. */
  readonly started: number;
  /** Runs what is queued or in a thread in the main thread, then stops the threads. */
  close(): Promise<void>;
}

/** Failures of threads in a row (none answering between) after which searches stay here. */
export const MAX_FAILURES = 3;

interface Job {
  id: number;
  filter: ListFilter;
  resolve: (page: UserPage) => void;
  reject: (err: unknown) => void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  job?: Job;
  gone: boolean;
}

export function searchThreads(opts: {
  count: number;
  /** The compiled search-thread.js. */
  module: URL;
  data: SearchThreadData;
  /** The same search in the main thread. */
  here: (filter: ListFilter) => UserPage;
}): SearchThreads {
  const threads: Thread[] = [];
  const queue: Job[] = [];
  let failures = 0;
  let closed = false;
  let ids = 0;
  let started = 0;
  const waiters: ((ready: boolean) => void)[] = [];
  const tell = (ready: boolean) => {
    for (const w of waiters.splice(0)) w(ready);
  };

  const runHere = (job: Job) => {
    try {
      job.resolve(opts.here(job.filter));
    } catch (err) {
      job.reject(err);
    }
  };
  const usable = () => !closed && failures < MAX_FAILURES;

  const send = (t: Thread, job: Job) => {
    t.job = job;
    t.worker.postMessage({ id: job.id, filter: job.filter });
  };
  const pump = () => {
    for (const t of threads) {
      if (queue.length === 0) return;
      if (t.ready && !t.job) send(t, queue.shift()!);
    }
  };

  const start = () => {
    const t: Thread = {
      worker: new Worker(opts.module, { workerData: opts.data }),
      ready: false,
      gone: false,
    };
    // An idle thread does not keep the process alive; the store's close stops it.
    t.worker.unref();
    threads.push(t);
    started++;
    t.worker.on('message', (m: SearchAnswer) => {
      if ('ready' in m) {
        t.ready = true;
        tell(true);
      } else {
        const job = t.job;
        t.job = undefined;
        failures = 0;
        if (job?.id === m.id) {
          if ('error' in m) job.reject(Object.assign(new Error(m.error.message), m.error));
          else job.resolve(m.page as UserPage);
        }
      }
      pump();
    });
    const lost = () => {
      if (t.gone) return;
      t.gone = true;
      threads.splice(threads.indexOf(t), 1);
      if (!closed) failures++;
      const job = t.job;
      t.job = undefined;
      if (job) runHere(job);
      // Nothing left to take the queue: it runs here.
      if (!usable() || !threads.some((o) => o.ready)) queue.splice(0).forEach(runHere);
      else pump();
      if (!usable()) tell(false);
    };
    t.worker.once('error', lost);
    t.worker.once('exit', lost);
  };

  const startAll = () => {
    while (threads.length < opts.count) start();
  };

  return {
    get started() {
      return started;
    },
    ready() {
      if (!usable()) return Promise.resolve(false);
      startAll();
      if (threads.some((t) => t.ready)) return Promise.resolve(true);
      return new Promise((resolve) => waiters.push(resolve));
    },
    async list(filter) {
      if (!usable()) return opts.here(filter);
      startAll();
      return new Promise<UserPage>((resolve, reject) => {
        const job = { id: ids++, filter, resolve, reject };
        const idle = threads.find((t) => t.ready && !t.job);
        if (idle) send(idle, job);
        else if (threads.some((t) => t.ready)) queue.push(job);
        else runHere(job);
      });
    },
    async close() {
      closed = true;
      tell(false);
      for (const t of threads) {
        const job = t.job;
        t.job = undefined;
        if (job) runHere(job);
      }
      queue.splice(0).forEach(runHere);
      await Promise.all(threads.map((t) => t.worker.terminate()));
    },
  };
}
