/**
 * Spinners for slow steps: ora on stderr, only when stderr is a terminal. Elsewhere (pipes, CI
 * logs) nothing is drawn; the command's own notices say what happened.
 */
import { type Deps, onCleanup } from '../context.js';

export interface Spinner {
  update(text: string): void;
  stop(): void;
}

const silent: Spinner = { update() {}, stop() {} };

/** Starts a spinner with `text`; stopped by the caller, or at the end of the command. */
export async function spinner(deps: Deps, text: string): Promise<Spinner> {
  const { io } = deps;
  // ora loops forever on a terminal that reports 0 columns (some CI pseudo-terminals).
  if (!io.stderrIsTTY || (io.stderr as { columns?: number }).columns === 0) return silent;
  const { default: ora } = await import('ora');
  const s = ora({
    text,
    stream: io.stderr,
    color: io.stderrColor ? 'cyan' : false,
    // Leave stdin alone: prompts and Ctrl-C keep working as usual.
    discardStdin: false,
  }).start();
  const stop = () => {
    if (s.isSpinning) s.stop();
  };
  onCleanup(deps, stop);
  return {
    update(t) {
      s.text = t;
    },
    stop,
  };
}

/** Runs `fn` under a spinner that stops when it settles. */
export async function withSpinner<T>(deps: Deps, text: string, fn: () => Promise<T>): Promise<T> {
  const s = await spinner(deps, text);
  try {
    return await fn();
  } finally {
    s.stop();
  }
}
