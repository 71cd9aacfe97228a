/**
 * Progress on stderr: on a terminal a one-line bar (done/total, rate, ETA) redrawn at most 10
 * times a second; in a log a plain line every tenth of the work or 10 s (logLines).
 */

import type { Progress } from '../../import/run.js';
import type { IO } from '../context.js';

export type { Progress };

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

/**
 * For logs (a nightly cron job): a plain line at every tenth of the work and at least every
 * 10 s, so a log shows the run is alive without thousands of redraws.
 */
function logLines(io: IO, label: string, total: number, now: () => number): Progress {
  const start = now();
  let done = 0;
  let lastAt = start;
  let lastTenth = 0;
  return {
    tick() {
      done++;
      const tenth = Math.floor((done * 10) / total);
      const at = now();
      if (tenth === lastTenth && at - lastAt < 10_000) return;
      lastTenth = tenth;
      lastAt = at;
      const elapsed = at - start;
      const share = `${label} ${done}/${total} ${Math.floor((done / total) * 100)}%`;
      const rate = elapsed > 0 ? (done * 1000) / elapsed : 0;
      const pace = rate > 0 ? `  ${rate.toFixed(0)}/s  ETA ${duration((total - done) / rate)}` : '';
      io.stderr.write(`${share}${pace}\n`);
    },
    end() {},
  };
}

export function progress(
  io: IO,
  label: string,
  total: number,
  now = () => performance.now(),
): Progress {
  if (total === 0) return { tick() {}, end() {} };
  if (!io.stderrIsTTY) return logLines(io, label, total, now);
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
