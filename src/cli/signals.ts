/**
 * The CLI owns SIGINT and SIGTERM. Libraries leave listeners of their own (ora's cursor restore
 * does), so nothing here counts listeners. The first signal goes to the innermost command that
 * asked for it (`onInterrupt`): an upload cancels its transfers, an import stops taking rows,
 * `serve` drains. A command that did not ask ends at once. A second signal always ends the
 * process at once.
 */
import { EXIT, type ExitCode } from './errors.js';

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** The exit code of a command stopped by `signal` (128 + its number, as shells report). */
export const exitCodeOf = (signal: StopSignal): ExitCode =>
  signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;

const handlers: ((signal: StopSignal) => void)[] = [];

/** A repeat within this time is a library's echo of the first signal, not a second one. */
const ECHO_MS = 300;

/** Routes the first SIGINT/SIGTERM to `fn` until the returned function is called. */
export function onInterrupt(fn: (signal: StopSignal) => void): () => void {
  handlers.push(fn);
  return () => {
    const i = handlers.lastIndexOf(fn);
    if (i >= 0) handlers.splice(i, 1);
  };
}

/**
 * Installs the process listeners for one command run. `stopNow` ends the process (after what
 * must be flushed); it gets the signal that asked for it.
 */
export function installSignals(
  stopNow: (signal: StopSignal) => void,
  now: () => number = Date.now,
): () => void {
  let receivedAt: number | undefined;
  const listener = (signal: StopSignal) => {
    const handler = handlers.at(-1);
    if (receivedAt === undefined) {
      if (!handler) return stopNow(signal);
      receivedAt = now();
      return handler(signal);
    }
    // conf's file writer (atomically → when-exit) re-raises every signal it sees, at once: that
    // echo is not a person pressing Ctrl-C twice.
    if (now() - receivedAt < ECHO_MS) return;
    stopNow(signal);
  };
  const onInt = () => listener('SIGINT');
  const onTerm = () => listener('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
}
