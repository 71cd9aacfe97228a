/**
 * The delivery worker `serve` runs: it follows the event log into delivery rows (the store's
 * fan-out), claims the due ones, and sends each signed per Standard Webhooks 1.0, settling it
 * as delivered, to be retried on the schedule, or given up, and disabling an endpoint that
 * answers 410 or has failed for five days. At least once: a delivery is settled only after
 * its attempt ended, and one claimed by a process that died falls due again when its lease ends.
 *
 * Bounded: at most `concurrency` attempts at once, and at most `perEndpoint` of one endpoint's
 * (a claim takes only what its endpoint has room for), so one slow receiver holds a few slots,
 * never the others'. Woken by this process's own events
 * and by a poll (other replicas' events, retries falling due); the clock and the dice are
 * injectable so retry tests move time instead of waiting.
 */
import { DISABLE_AFTER_FAILING_MS } from '../../contract/webhooks.js';
import { systemAudit } from '../../store/common/event-rows.js';
import { WORKER_ACTOR } from '../../store/common/webhook-rows.js';
import type { Store } from '../../store/store.js';
import type { ClaimedDelivery, Settled, SettledAs, Settlement } from '../../store/webhook-types.js';
import type { AttemptOutcome } from './attempt.js';
import { signingSecrets } from './secrets.js';

export interface WorkerDeps {
  store: Pick<Store, 'webhooks' | 'events'>;
  /** One attempt (attempt.ts sendAttempt with the egress guard's dispatcher). */
  send: (request: {
    url: string;
    headers: Record<string, string>;
    body: string;
  }) => Promise<AttemptOutcome>;
  /** The webhook-signature header's value (contract/webhook-signature.ts). */
  sign: (secrets: string[], id: string, timestampSeconds: number, body: string) => string;
  /** The delay before the next attempt, or null to give up (schedule.ts). */
  nextDelay: (
    failedAttempts: number,
    opts: { retryAfterMs?: number; random: () => number },
  ) => number | null;
  log: (line: string) => void;
  now?: () => number;
  random?: () => number;
  concurrency?: number;
  perEndpoint?: number;
  /** How long a claim holds a delivery; longer than an attempt can take (15 s). */
  leaseMs?: number;
  /** How often to look for other replicas' events and for retries falling due. */
  pollMs?: number;
  /** Events read per endpoint per fan-out. */
  fanOutBatch?: number;
  /** The least time between two fan-outs this process's events start (see `follow`). */
  followMs?: number;
}

export interface WebhookWorker {
  /** Something happened (an event, a test, a retry): look now. */
  kick(): void;
  /** Stops claiming, and resolves once the attempts in flight are settled (the drain). */
  stop(): Promise<void>;
}

export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_PER_ENDPOINT = 4;
export const DEFAULT_LEASE_MS = 60_000;
export const DEFAULT_POLL_MS = 1_000;
export const DEFAULT_FOLLOW_MS = 25;

/** Only the origin goes into the log: a receiver's path or query may carry its own secret. */
const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
};

export function webhookWorker(deps: WorkerDeps): WebhookWorker {
  const { store, send, sign, nextDelay, log } = deps;
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
  const perEndpoint = deps.perEndpoint ?? DEFAULT_PER_ENDPOINT;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const pollMs = deps.pollMs ?? DEFAULT_POLL_MS;
  const batch = deps.fanOutBatch ?? 500;
  const followMs = deps.followMs ?? DEFAULT_FOLLOW_MS;
  const audit = systemAudit(WORKER_ACTOR);
  /** Attempts in flight here, by delivery id, with their endpoint. */
  const inFlight = new Map<string, { webhookId: string; done: Promise<void> }>();
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let fanOutDue = true;
  let followTimer: NodeJS.Timeout | undefined;
  let lastFollowAt = Number.NEGATIVE_INFINITY;

  function settlementOf(d: ClaimedDelivery, o: AttemptOutcome, at: number): Settlement {
    const base = { at, httpStatus: o.status ?? null, durationMs: Math.round(o.durationMs) };
    if (o.kind === 'delivered') {
      return { ...base, status: 'delivered', error: null, nextAttemptAt: null, succeeded: true };
    }
    const error = o.error ?? `the receiver answered ${o.status}`;
    if (o.kind === 'gone') {
      return {
        ...base,
        status: 'failed',
        error,
        nextAttemptAt: null,
        succeeded: false,
        disable: 'the receiver answered 410 Gone',
      };
    }
    const delay = nextDelay(Number(d.attempts) + 1, {
      ...(o.retryAfterMs !== undefined ? { retryAfterMs: o.retryAfterMs } : {}),
      random,
    });
    const failingFor = at - Number(d.failing_since ?? at);
    return {
      ...base,
      status: delay === null ? 'failed' : 'pending',
      error,
      nextAttemptAt: delay === null ? null : at + delay,
      succeeded: false,
      ...(failingFor >= DISABLE_AFTER_FAILING_MS
        ? { disable: 'every delivery failed for 5 days' }
        : {}),
    };
  }

  async function attempt(d: ClaimedDelivery): Promise<void> {
    const started = now();
    const secrets = signingSecrets(d, started);
    const timestamp = Math.floor(started / 1000);
    let outcome: AttemptOutcome;
    try {
      outcome = await send({
        url: d.url,
        body: d.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Roster-Webhooks/1',
          'webhook-id': d.event_id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': sign(secrets, d.event_id, timestamp, d.body),
        },
      });
    } catch (err) {
      outcome = { kind: 'failed', error: (err as Error).message, durationMs: now() - started };
    }
    const s = settlementOf(d, outcome, now());
    // What the row says now: a manual retry asked during the attempt stands over its outcome.
    const as = (await settle({ delivery: d, settlement: s })) ?? s;
    if (s.status !== 'delivered') {
      const retried = as.status !== s.status || as.nextAttemptAt !== s.nextAttemptAt;
      const due =
        as.nextAttemptAt === null
          ? 'given up'
          : `next try ${as.nextAttemptAt <= s.at ? 'now' : `in ${Math.ceil((as.nextAttemptAt - s.at) / 1000)} s`}`;
      const next = retried ? `a manual retry asked meanwhile stands: ${due}` : due;
      log(
        `webhooks: ${d.type} ${d.event_id} to ${originOf(d.url)} not delivered (attempt ${Number(d.attempts) + 1}): ${s.error}; ${next}${s.disable ? `; endpoint disabled: ${s.disable}` : ''}`,
      );
    }
  }

  /**
   * Group commit: settlements that end while one batch is being written go in the next, so a
   * busy endpoint costs a transaction per batch rather than per delivery, and a lone attempt
   * is written at once (nothing waits for a batch to fill). Each attempt stays in `inFlight`
   * until its own batch is committed, so it is never claimed again before it is settled.
   */
  const queued: {
    settled: Settled;
    done: (as: SettledAs | undefined) => void;
    failed: (err: Error) => void;
  }[] = [];
  let writing = false;
  function settle(settled: Settled): Promise<SettledAs | undefined> {
    return new Promise((done, failed) => {
      queued.push({ settled, done, failed });
      if (!writing) void writeSettlements();
    });
  }
  async function writeSettlements() {
    writing = true;
    while (queued.length > 0) {
      const batch = queued.splice(0, queued.length);
      try {
        const as = await store.webhooks.settleAll(
          batch.map((q) => q.settled),
          audit,
        );
        for (const q of batch) q.done(as.get(q.settled.delivery.id));
      } catch (err) {
        for (const q of batch) q.failed(err as Error);
      }
    }
    writing = false;
  }

  async function pass(): Promise<void> {
    // The log is read when it may have grown (an event here, the poll for other replicas'),
    // not after every attempt: a busy receiver's settlements would each cost a fan-out.
    if (fanOutDue) {
      fanOutDue = false;
      // A page came back full (a backlog of more than `batch` events): read on at the next
      // pass, which schedule() makes due at once, rather than at the next poll. Whether this
      // page made deliveries says nothing of the next: it may have held only types the
      // endpoints do not take.
      if ((await store.webhooks.fanOut(now(), batch)).more) fanOutDue = true;
    }
    const free = concurrency - inFlight.size;
    if (free <= 0 || stopped) return;
    const busy: Record<string, number> = {};
    for (const f of inFlight.values()) busy[f.webhookId] = (busy[f.webhookId] ?? 0) + 1;
    const claimed = await store.webhooks.claim({
      now: now(),
      leaseMs,
      limit: free,
      perEndpoint,
      busy,
      inFlight: [...inFlight.keys()],
    });
    for (const d of claimed) {
      const done = attempt(d)
        .catch((err: Error) => log(`error: webhooks: ${err.stack ?? err.message}`))
        .finally(() => {
          inFlight.delete(d.id);
          kick();
        });
      inFlight.set(d.id, { webhookId: d.webhook_id, done });
    }
  }

  async function schedule() {
    clearTimeout(timer);
    if (stopped) return;
    // A backlog left to fan out: at once, after the event loop's turn (requests go first).
    const due = fanOutDue ? now() : await store.webhooks.nextDue();
    const wait = due === undefined ? pollMs : Math.max(0, Math.min(pollMs, due - now()));
    if (stopped) return;
    timer = setTimeout(follow, wait);
    timer.unref();
  }

  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await pass();
      } while (again && !stopped);
    })()
      .catch((err: Error) => log(`error: webhooks: ${err.message}`))
      .finally(() => {
        running = undefined;
        schedule().catch((err: Error) => log(`error: webhooks: ${err.message}`));
      });
  }

  /**
   * The log may have grown: fan out, then claim. Every write's event calls this, and a fan-out
   * is a transaction of its own (on SQLite a commit, once an endpoint exists: deliveries and
   * cursors written). Under a burst that was a second commit for each write; now the first
   * event after a quiet spell is fanned out at once and those within `followMs` of it
   * together at its end, so a delivery waits at most `followMs` longer. Real time, not the
   * injected clock: this paces work, and tests that move the clock must not stall it.
   */
  function follow() {
    if (followTimer || stopped) return;
    const wait = lastFollowAt + followMs - performance.now();
    const go = () => {
      followTimer = undefined;
      lastFollowAt = performance.now();
      fanOutDue = true;
      kick();
    };
    if (wait <= 0) return go();
    followTimer = setTimeout(go, wait);
    followTimer.unref();
  }

  const unsubscribe = store.events.subscribe(follow);
  return {
    kick,
    async stop() {
      stopped = true;
      unsubscribe();
      clearTimeout(timer);
      clearTimeout(followTimer);
      await running;
      await Promise.all([...inFlight.values()].map((f) => f.done));
    },
  };
}
