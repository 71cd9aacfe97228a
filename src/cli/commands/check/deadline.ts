/**
 * `roster check --deadline`: one bound on the whole run, retries and their waits included. The
 * client aborts every request with the signal; the reason says which bound it was, so the step
 * in flight is reported as cut by it and the rest as skipped.
 */

/** The abort reason: the step that was running fails with this message. */
export class DeadlineReached extends Error {
  override name = 'DeadlineReached';
  constructor(readonly seconds: number) {
    super(`cut by --deadline ${seconds} s`);
  }
}

/** Starts the clock: `signal` aborts after `ms`; `cancel` stops it once the run is over. */
export type StartDeadline = (ms: number) => { signal: AbortSignal; cancel(): void };

export const timerDeadline: StartDeadline = (ms) => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  // A finished check must not wait for its own deadline to exit.
  timer.unref();
  return { signal: controller.signal, cancel: () => clearTimeout(timer) };
};

/** The deadline as `runCheck` uses it: the signal aborts with DeadlineReached as its reason. */
export function startDeadline(seconds: number, start: StartDeadline) {
  const clock = start(seconds * 1000);
  const controller = new AbortController();
  const reason = new DeadlineReached(seconds);
  const abort = () => controller.abort(reason);
  if (clock.signal.aborted) abort();
  else clock.signal.addEventListener('abort', abort, { once: true });
  return { signal: controller.signal, reason, cancel: clock.cancel };
}
