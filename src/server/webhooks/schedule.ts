/**
 * When a failed delivery is tried again: the Standard Webhooks reference schedule (Svix's), a
 * first attempt then retries 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each failure
 * (about 27.6 h in all), then the delivery is given up.
 *
 * Jitter: each step is scaled by a factor in [0.8, 1.2) from the injected random, so the retries
 * of a burst of events that failed together (a receiver's outage) do not all arrive together.
 *
 * Retry-After (a 429 or 503's, as sendAttempt reads it) may LENGTHEN the wait, up to the next
 * step's (un-jittered) delay, and never shortens it:
 *   delay = max(jittered step, min(Retry-After, next step))
 * (after the last step, "the next step" is the last one again). So a receiver that asks for a
 * minute after the first failure gets its minute, not 5 s; one that asks for a day waits only
 * until the next step, so a hostile or mistaken header cannot stall delivery; and one that asks
 * for 0 s cannot make the service retry faster than the schedule.
 */

export const RETRY_STEPS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
] as const;

const JITTER = 0.2;

/**
 * The wait in ms before the next attempt after `failedAttempts` failures (1 after the first
 * attempt failed), or null when the delivery is to be given up. `random` returns [0, 1).
 */
export function nextRetryDelay(
  failedAttempts: number,
  opts: { retryAfterMs?: number; random: () => number },
): number | null {
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1) {
    throw new Error(`failedAttempts must be an integer of at least 1, not ${failedAttempts}`);
  }
  const step = RETRY_STEPS_MS[failedAttempts - 1];
  if (step === undefined) return null;
  const jittered = Math.floor(step * (1 + JITTER * (2 * opts.random() - 1)));
  if (opts.retryAfterMs === undefined) return jittered;
  const next = RETRY_STEPS_MS[failedAttempts] ?? step;
  return Math.max(jittered, Math.min(opts.retryAfterMs, next));
}
