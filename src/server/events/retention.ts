/**
 * Events older than the retention go, in the background and in small batches: each batch is
 * one short statement (a few hundred rows by the time index), so a write waits at most for one
 * batch, never for a delete of a month of events. Every replica prunes; batches of several
 * replicas only take turns. Settled webhook deliveries (delivered or given up) older than the
 * retention go the same way; pending ones stay.
 */
import { DEFAULT_RETENTION_DAYS } from '../../contract/events.js';
import type { EventsRepo, WebhooksRepo } from '../../store/store.js';

export const PRUNE_BATCH = 500;
const DAY_MS = 86_400_000;

export interface PrunerOptions {
  events: EventsRepo;
  webhooks?: Pick<WebhooksRepo, 'prune'>;
  days?: number;
  log: (line: string) => void;
  now?: () => number;
  /** Between rounds; default an hour. */
  intervalMs?: number;
  batch?: number;
}

/** Deletes every event older than `days` now, batch by batch; how many went. */
export async function pruneEvents({
  events,
  webhooks,
  days = DEFAULT_RETENTION_DAYS,
  now = Date.now,
  batch = PRUNE_BATCH,
}: Omit<PrunerOptions, 'log' | 'intervalMs'>): Promise<number> {
  const before = new Date(now() - days * DAY_MS).toISOString();
  let pruned = 0;
  for (const prune of [events.prune, ...(webhooks ? [webhooks.prune] : [])]) {
    for (;;) {
      const n = await prune(before, batch);
      pruned += n;
      if (n < batch) break;
      // Let requests in between batches.
      await new Promise((r) => setImmediate(r));
    }
  }
  return pruned;
}

export function startPruner(opts: PrunerOptions) {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const round = () => {
    pruneEvents(opts)
      .catch((err: Error) => opts.log(`error: pruning events: ${err.message}`))
      .finally(() => {
        if (!stopped) timer = setTimeout(round, opts.intervalMs ?? 3_600_000).unref();
      });
  };
  round();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
