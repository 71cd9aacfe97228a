/**
 * Events older than the retention go, in the background and in small batches: each batch is
 * one short statement (a few hundred rows by the time index), so a write waits at most for one
 * batch, never for a delete of a month of events. Every replica prunes; batches of several
 * replicas only take turns. Settled webhook deliveries (delivered or given up) older than the
 * retention go the same way; pending ones stay.
 *
 * SQLite then sweeps the keys that pruning left in event_targets, a window at a time, paced
 * the same way (EventsRepo.sweep).
 *
 * Where a statement blocks the process (SQLite: better-sqlite3 is synchronous, so no request is
 * served while a batch runs) the batches are paced (`pace`): each is sized from the last one's
 * duration to take about `batchMs`, and followed by a pause of its duration × `pauseFactor`, so
 * the pruner holds at most 1 / (1 + pauseFactor) of the event loop and a request waits for one
 * short batch at most. The pause follows the duration, not the size, because what makes a
 * batch slow is often not its rows but the WAL checkpoint its commit ran (SQLite checkpoints
 * in whichever commit fills the WAL past 1,000 pages, a write's or a batch's): fewer pages
 * written a second means fewer of those. PostgreSQL's delete runs in the database while this
 * process serves: its batches go back to back (a write p99 1.67× idle while 1M went).
 * Figures: bench/HISTORY.md, "Events: the log's cost and speed".
 */
import { DEFAULT_RETENTION_DAYS } from '../../contract/events.js';
import type { EventsRepo, WebhooksRepo } from '../../store/store.js';

export const PRUNE_BATCH = 500;
const DAY_MS = 86_400_000;

/** How paced batches are sized and spaced (gentlePace gives the defaults). */
export interface Pace {
  /** What a batch aims to take, in ms. */
  batchMs: number;
  /** The pause after a batch, as a multiple of its duration. */
  pauseFactor: number;
  /** Monotonic milliseconds, for a batch's duration. */
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** The first paced batch: small, as nothing is known yet of what a row costs. */
export const FIRST_PACED_BATCH = 16;
const MAX_PACED_BATCH = 10_000;

/**
 * SQLite's pace: batches of ~3 ms and nine times as long between them: a tenth of the event
 * loop at most. Since a target's keys left the log's indexes (migration 19), a batch writes
 * pages in proportion to its rows, so what the writes beside it feel is the pages written a
 * second, checkpointed by whichever commit comes next: 1M expired events went in 16-17 s at a
 * quarter of the loop with the write p99 2.5-2.8x idle; at a tenth, 41-53 s and 1.5-1.9x;
 * batches of 1 ms at a quarter, 23 s and 1.8x, but the write p50 1.5x (bench/HISTORY.md,
 * "SQLite's pruning, a target's keys in a table of their own").
 */
export function gentlePace(over: Partial<Pace> = {}): Pace {
  return {
    batchMs: 3,
    pauseFactor: 9,
    clock: () => performance.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ...over,
  };
}

/**
 * The next batch's size: scaled so it would take `batchMs` at the last one's rate, but at most
 * doubled (one fast batch proves little) and at most halved (one slow batch may be a WAL
 * checkpoint that the next will not pay).
 */
export function nextBatch(limit: number, tookMs: number, batchMs: number): number {
  const aimed = tookMs > 0 ? Math.round((limit * batchMs) / tookMs) : limit * 2;
  const bounded = Math.min(limit * 2, Math.max(Math.ceil(limit / 2), aimed));
  return Math.min(MAX_PACED_BATCH, Math.max(FIRST_PACED_BATCH, bounded));
}

export interface PrunerOptions {
  events: EventsRepo;
  webhooks?: Pick<WebhooksRepo, 'prune'>;
  days?: number;
  log: (line: string) => void;
  /** Wall-clock milliseconds, for the retention's edge. */
  now?: () => number;
  /** Between rounds; default an hour. */
  intervalMs?: number;
  /** The batch size back to back (no `pace`). */
  batch?: number;
  /** Batches sized by time with a pause after each (a store whose statements block). */
  pace?: Pace;
  /** Ends the round before its next batch (serve's close: the store is about to close). */
  signal?: AbortSignal;
  /**
   * Sweeps what pruning left (EventsRepo.sweep) even when this round pruned no event: a
   * process's first round, and any after one that failed, as its sweep may not have ended.
   */
  sweepAnyway?: boolean;
}

type Prune = (before: string, limit: number) => Promise<number>;

/** Fixed batches, letting requests in between them. */
async function backToBack(prune: Prune, before: string, batch: number, signal?: AbortSignal) {
  let pruned = 0;
  while (!signal?.aborted) {
    const n = await prune(before, batch);
    pruned += n;
    if (n < batch) break;
    await new Promise((r) => setImmediate(r));
  }
  return pruned;
}

async function paced(prune: Prune, before: string, pace: Pace, signal?: AbortSignal) {
  let pruned = 0;
  let limit = FIRST_PACED_BATCH;
  while (!signal?.aborted) {
    const started = pace.clock();
    const n = await prune(before, limit);
    const took = pace.clock() - started;
    pruned += n;
    await pace.sleep(took * pace.pauseFactor);
    if (n < limit) break;
    limit = nextBatch(limit, took, pace.batchMs);
  }
  return pruned;
}

/**
 * Deletes every event older than `days` now, batch by batch, then sweeps what that left
 * behind where the store has a sweep; how many events and deliveries went.
 */
export async function pruneEvents({
  events,
  webhooks,
  days = DEFAULT_RETENTION_DAYS,
  now = Date.now,
  batch = PRUNE_BATCH,
  pace,
  signal,
  sweepAnyway = false,
}: Omit<PrunerOptions, 'log' | 'intervalMs'>): Promise<number> {
  const before = new Date(now() - days * DAY_MS).toISOString();
  const inBatches = (prune: Prune) =>
    pace ? paced(prune, before, pace, signal) : backToBack(prune, before, batch, signal);
  const prunedEvents = await inBatches(events.prune);
  const { sweep } = events;
  if (sweep && (prunedEvents > 0 || sweepAnyway)) {
    // From the start, paced as the pruning is: a window with more after it counts as a full
    // batch, the last as a short one.
    let after: string | undefined;
    await inBatches(async (_, limit) => {
      after = await sweep(limit, after);
      return after === undefined ? 0 : limit;
    });
  }
  return prunedEvents + (webhooks ? await inBatches(webhooks.prune) : 0);
}

export function startPruner(opts: PrunerOptions) {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  // Until a round has ended well: the first, or the last failed before its sweep ended.
  let sweepDue = true;
  const stopping = new AbortController();
  const round = () => {
    pruneEvents({ ...opts, signal: stopping.signal, sweepAnyway: sweepDue })
      .then(() => {
        sweepDue = false;
      })
      .catch((err: Error) => opts.log(`error: pruning events: ${err.message}`))
      .finally(() => {
        if (!stopped) timer = setTimeout(round, opts.intervalMs ?? 3_600_000).unref();
      });
  };
  round();
  return {
    stop() {
      stopped = true;
      stopping.abort();
      clearTimeout(timer);
    },
  };
}
