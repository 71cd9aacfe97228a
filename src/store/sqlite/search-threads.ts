/**
 * SQLite searches on threads of their own. better-sqlite3 runs a statement to its end on the
 * thread that asked, so in the main thread a search (5–50 ms at 1M users) stalls every other
 * request, and two searches at once take turns: with two in flight the million harness's p50
 * was about twice the p50 of one alone (bench/HISTORY.md, "SQLite searches on threads"). Each
 * thread has a connection of its own that only reads (db.ts openReader), and runs each search in
 * one read transaction: its statements see one snapshot, what was committed when it began, as
 * in the main thread (where no write can run between them). WAL lets it read beside the store's
 * writes and the other threads; writes are answered only once committed (group-commit.ts), so a
 * client that wrote and then searches finds its write.
 *
 * Only searches come here: a page without a query costs the main thread a few ms, about what
 * copying a 1,000-user page between threads would. The threads start with the first search, which
 * runs in the main thread meanwhile, as does any search while no thread is ready. A thread that
 * fails (its code, its connection, its exit, a search past SEARCH_TIMEOUT_MS) is told to the
 * owner; its search is answered in the main thread (or, past the timeout, refused as the store
 * being unavailable), and it is started again by the next search, MAX_FAILURES times in the
 * store's life: threads should never fail, and after that many searches stay in the main thread.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { StoreUnavailableError } from '../errors.js';
import type { ListFilter, UserPage } from '../types.js';
import type { SearchAnswer, SearchAsk, SearchThreadData } from './search-thread.js';

export interface SearchThreads {
  list(filter: ListFilter): Promise<UserPage>;
  /**
   * Starts the threads if they are not, and tells once all are ready (true), or once searches
   * will stay in the main thread (false: closed, or MAX_FAILURES).
   */
  ready(): Promise<boolean>;
  /** Threads started so far, replacements included; and those running now. */
  readonly started: number;
  readonly running: number;
  /** Answers what is queued or on a thread in the main thread, then ends the threads. */
  close(): Promise<void>;
}

/** Threads lost in a store's life after which searches stay in the main thread. */
export const MAX_FAILURES = 3;
/** A search on a thread longer than this is refused (503) and its thread replaced. */
export const SEARCH_TIMEOUT_MS = 10_000;
/** How long a thread asked to end may take to close its connection before it is stopped. */
const CLOSE_GRACE_MS = 2_000;

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
  timer?: NodeJS.Timeout;
  gone: boolean;
}

export function searchThreads(opts: {
  count: number;
  /** The compiled search-thread.js. */
  module: URL;
  data: SearchThreadData;
  /** The same search in the main thread. */
  here: (filter: ListFilter) => UserPage;
  /** Told when a thread fails, and when searches stay in the main thread for good. */
  onTrouble?: (message: string) => void;
  timeoutMs?: number;
}): SearchThreads {
  const threads: Thread[] = [];
  const queue: Job[] = [];
  const timeoutMs = opts.timeoutMs ?? SEARCH_TIMEOUT_MS;
  let failures = 0;
  let closed = false;
  let ids = 0;
  let started = 0;
  const waiters: ((ready: boolean) => void)[] = [];
  const usable = () => !closed && failures < MAX_FAILURES;
  const allReady = () => threads.length === opts.count && threads.every((t) => t.ready);
  const tell = () => {
    if (usable() && !allReady()) return;
    for (const w of waiters.splice(0)) w(usable());
  };

  const runHere = (job: Job) => {
    try {
      job.resolve(opts.here(job.filter));
    } catch (err) {
      job.reject(err);
    }
  };
  const take = (t: Thread) => {
    const job = t.job;
    t.job = undefined;
    clearTimeout(t.timer);
    return job;
  };

  const send = (t: Thread, job: Job) => {
    t.job = job;
    t.worker.postMessage({ id: job.id, filter: job.filter } satisfies SearchAsk);
    t.timer = setTimeout(() => {
      const late = take(t);
      late?.reject(
        new StoreUnavailableError(`a search took longer than ${timeoutMs / 1000} s; try again`),
      );
      lost(t, `a search thread took longer than ${timeoutMs / 1000} s and was stopped`);
      void t.worker.terminate();
    }, timeoutMs);
    t.timer.unref();
  };
  const pump = () => {
    for (const t of threads) {
      if (queue.length === 0) return;
      if (t.ready && !t.job) send(t, queue.shift()!);
    }
  };

  function lost(t: Thread, why: string) {
    if (t.gone) return;
    t.gone = true;
    threads.splice(threads.indexOf(t), 1);
    const job = take(t);
    if (job) runHere(job);
    if (closed) return;
    failures++;
    opts.onTrouble?.(
      failures < MAX_FAILURES
        ? `${why}; its search ran in the main thread, and it is started again`
        : `${why}; searches run in the main thread from now on (${MAX_FAILURES} threads lost)`,
    );
    if (!usable()) {
      for (const other of threads.splice(0)) {
        other.gone = true;
        const theirs = take(other);
        if (theirs) runHere(theirs);
        void other.worker.terminate();
      }
    }
    // Nothing left to take the queue: it runs here.
    if (!threads.some((o) => o.ready)) queue.splice(0).forEach(runHere);
    else pump();
    // Someone waits for the threads: start the replacement now rather than at the next search.
    if (usable() && waiters.length > 0) startAll();
    tell();
  }

  const start = () => {
    const t: Thread = {
      worker: new Worker(opts.module, { workerData: opts.data }),
      ready: false,
      gone: false,
    };
    // An idle thread does not keep the process alive; the store's close ends it.
    t.worker.unref();
    threads.push(t);
    started++;
    t.worker.on('message', (m: SearchAnswer) => {
      if ('ready' in m) {
        t.ready = true;
        tell();
      } else {
        const job = take(t);
        if (job && job.id === m.id) {
          if ('error' in m) job.reject(Object.assign(new Error(m.error.message), m.error));
          else job.resolve(m.page);
        }
      }
      pump();
    });
    t.worker.once('error', (err) => lost(t, `a search thread failed: ${err.message}`));
    t.worker.once('exit', (code) => lost(t, `a search thread exited (code ${code})`));
  };
  const startAll = () => {
    while (threads.length < opts.count) start();
  };

  return {
    get started() {
      return started;
    },
    get running() {
      return threads.length;
    },
    ready() {
      if (usable()) startAll();
      return new Promise((resolve) => {
        waiters.push(resolve);
        tell();
      });
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
      tell();
      for (const t of threads) {
        const job = take(t);
        if (job) runHere(job);
      }
      queue.splice(0).forEach(runHere);
      // Each thread closes its connection and ends; one that does not in time is stopped.
      await Promise.all(
        threads.map(async (t) => {
          const ended = once(t.worker, 'exit');
          t.worker.postMessage({ close: true } satisfies SearchAsk);
          const grace = setTimeout(() => void t.worker.terminate(), CLOSE_GRACE_MS);
          await ended;
          clearTimeout(grace);
        }),
      );
    },
  };
}
