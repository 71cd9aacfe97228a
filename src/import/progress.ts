/**
 * A one-line progress bar on stderr (done/total, rate, ETA), redrawn at most 10 times a second,
 * and only on a terminal: logs of a nightly run get the summary, not thousands of redraws.
 */
import type { IO } from '../cli/context.js';

export interface Progress {
  tick(): void;
  /** Clears the line. */
  end(): void;
}

const WIDTH = 24;

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60
    ? `${m}m${String(s % 60).padStart(2, '0')}s`
    : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** The bar's text for `done` of `total` after `elapsedMs`. */
export function progressLine(
  label: string,
  done: number,
  total: number,
  elapsedMs: number,
): string {
  const share = total > 0 ? done / total : 1;
  const filled = Math.round(share * WIDTH);
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const eta = rate > 0 ? duration((total - done) / rate) : '?';
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${done}/${total} ${Math.floor(share * 100)}%  ${rate.toFixed(0)}/s  ETA ${eta}`;
}

export function progress(
  io: IO,
  label: string,
  total: number,
  now = () => performance.now(),
): Progress {
  if (!io.stderrIsTTY || total === 0) return { tick() {}, end() {} };
  const start = now();
  let done = 0;
  let drawn = 0;
  const draw = () => {
    drawn = now();
    io.stderr.write(`\r\u001b[2K${progressLine(label, done, total, drawn - start)}`);
  };
  draw();
  return {
    tick() {
      done++;
      if (now() - drawn >= 100 || done === total) draw();
    },
    end() {
      io.stderr.write('\r\u001b[2K');
    },
  };
}
