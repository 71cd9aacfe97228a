/**
 * Preview work (sharp, pdfjs, ffmpeg) runs in a few slots, shared fairly between keys (tenant
 * and token): a key may hold at most half the slots, or more only while one stays free for
 * somebody else; waiting keys are served least recently served first; a key's queue is bounded;
 * and a task that waits too long is given up. A given-up preview is no failed upload: the file
 * is stored without one. So one token's 24 slow PDFs cannot starve another tenant's PNG.
 */
export type Outcome<T> =
  | { ran: true; value: T }
  | { ran: false; reason: 'queue full' | 'waited too long' };

export interface SchedulerOptions {
  slots: number;
  maxQueuedPerKey: number;
  maxWaitMs: number;
  /** Arms a timer and returns its cancel function; injectable for tests. */
  setTimer?: (fn: () => void, ms: number) => () => void;
}

interface Waiter {
  key: string;
  start(): void;
  cancel(): void;
}

const realTimer = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

export function previewScheduler(opts: SchedulerOptions) {
  const { slots, maxQueuedPerKey, maxWaitMs } = opts;
  const setTimer = opts.setTimer ?? realTimer;
  const share = Math.max(1, Math.floor(slots / 2));
  const runningBy = new Map<string, number>();
  const queues = new Map<string, Waiter[]>();
  const lastServed = new Map<string, number>();
  let running = 0;
  let served = 0;

  const eligible = (key: string) =>
    running < slots && ((runningBy.get(key) ?? 0) < share || running + 1 < slots);

  /** The first waiter of the least recently served key that may start now. */
  function next(): Waiter | undefined {
    let pick: Waiter | undefined;
    let pickServed = Number.POSITIVE_INFINITY;
    for (const [key, queue] of queues) {
      const when = lastServed.get(key) ?? 0;
      if (queue.length > 0 && when < pickServed && eligible(key)) {
        pick = queue[0];
        pickServed = when;
      }
    }
    return pick;
  }

  function dequeue(w: Waiter) {
    const queue = queues.get(w.key) ?? [];
    queue.splice(queue.indexOf(w), 1);
    if (queue.length === 0) queues.delete(w.key);
  }

  function pump() {
    for (let w = next(); w; w = next()) {
      dequeue(w);
      w.cancel();
      w.start();
    }
  }

  return async function run<T>(key: string, task: () => Promise<T>): Promise<Outcome<T>> {
    const queue = queues.get(key);
    if (!queue && eligible(key)) return runNow(key, task);
    if ((queue?.length ?? 0) >= maxQueuedPerKey) return { ran: false, reason: 'queue full' };
    return new Promise<Outcome<T>>((resolve, reject) => {
      const waiter: Waiter = {
        key,
        start: () => runNow(key, task).then(resolve, reject),
        cancel: setTimer(() => {
          dequeue(waiter);
          resolve({ ran: false, reason: 'waited too long' });
        }, maxWaitMs),
      };
      queues.set(key, [...(queues.get(key) ?? []), waiter]);
    });
  };

  async function runNow<T>(key: string, task: () => Promise<T>): Promise<Outcome<T>> {
    running++;
    runningBy.set(key, (runningBy.get(key) ?? 0) + 1);
    lastServed.set(key, ++served);
    try {
      return { ran: true, value: await task() };
    } finally {
      running--;
      const left = (runningBy.get(key) ?? 1) - 1;
      if (left === 0) runningBy.delete(key);
      else runningBy.set(key, left);
      pump();
    }
  }
}

export type PreviewScheduler = ReturnType<typeof previewScheduler>;
