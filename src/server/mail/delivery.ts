/**
 * Delivers the outbox: every message until a transport takes it, retried with capped
 * exponential backoff and jitter. Woken when a message is queued, and by a timer for retries.
 * At least once: a message leaves the table only after its transport confirmed it.
 */
import type { Store } from '../../store/store.js';
import type { MailTransport } from './transports.js';

/**
 * How long a message stays claimed by the replica sending it (PostgreSQL): the others skip it
 * meanwhile, and take it over if that replica died. Longer than one SMTP send can take.
 */
const CLAIM_MS = 60 * 1000;

export interface DeliveryOptions {
  outbox: Store['outbox'];
  transport: MailTransport;
  log: (line: string) => void;
  /** The clock and the dice, injectable for tests. */
  now?: () => number;
  random?: () => number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}

export interface OutboxDelivery {
  /** A message was queued, or the service started: deliver what is due. */
  kick(): void;
  /** Stops (what is left stays queued for the next start), after a send in progress. */
  stop(): Promise<void>;
}

export function outboxDelivery(opts: DeliveryOptions): OutboxDelivery {
  const { outbox, transport, log } = opts;
  const now = opts.now ?? Date.now;
  const random = opts.random ?? Math.random;
  const base = opts.retryBaseMs ?? 1000;
  const max = opts.retryMaxMs ?? 15 * 60 * 1000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  /** Half the capped exponential step, plus up to the other half at random. */
  const backoff = (attempts: number) => {
    const ceiling = Math.min(max, base * 2 ** Math.min(attempts, 30));
    return Math.round(ceiling / 2 + (random() * ceiling) / 2);
  };

  async function sendDue() {
    do {
      again = false;
      // One message claimed at a time: a stop never leaves claimed messages unsent.
      while (!stopped) {
        const [m] = await outbox.due(now(), CLAIM_MS, 1);
        if (!m) break;
        try {
          await transport.deliver(m);
          await outbox.delivered(m.id);
        } catch (err) {
          const delay = backoff(m.attempts);
          const reason = (err as Error).message;
          await outbox.failed(m.id, reason, now() + delay);
          log(
            `mail: ${m.messageId} not delivered (attempt ${m.attempts + 1}): ${reason}; next try in ${Math.ceil(delay / 1000)} s`,
          );
        }
      }
    } while (again && !stopped);
  }

  async function schedule() {
    clearTimeout(timer);
    const at = stopped ? undefined : await outbox.nextDue();
    if (at === undefined || stopped) return;
    timer = setTimeout(kick, Math.max(0, at - now()));
    timer.unref();
  }

  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = sendDue()
      .catch((err: Error) => log(`error: mail delivery: ${err.stack ?? err.message}`))
      .finally(() => {
        running = undefined;
        schedule().catch((err: Error) => log(`error: mail delivery: ${err.message}`));
      });
  }

  return {
    kick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      transport.close();
    },
  };
}
