/**
 * Progress on stderr: on a terminal a one-line bar (done/total, rate, ETA) redrawn at most 10
 * times a second; in a log a plain line every tenth of the work or 10 s (logLines).
 */

import type { Progress } from '../../import/run.js';
import type { IO } from '../context.js';

export type { Progress };

/** `999 B`, `22.1 kB`, `1.07 GB`: decimal units, as `--max-upload-size 500MB` reads them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  // 999.95 kB rounds to "1000.0 kB" with one decimal: show it as the next unit instead.
  if (value >= 999.95 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 100 ? 1 : 0).replace(/\.0$/, '')} ${units[unit]}`;
}

/** `45s`, `3m07s`, `2h46m`; rounded up, so an ETA never promises less than is left. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.ceil(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  const m = Math.ceil(s / 60);
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export interface LineStyle {
  /** Amounts are bytes (`50 MB/100 MB`, `25 MB/s`), else counts (`250/1000`, `50/s`). */
  bytes?: boolean;
  /** The bar's width in characters. */
  bar?: number;
}

/**
 * One progress line: `label [####----] done/total share%  rate/s  ETA t`. The one format of
 * every progress display (import rows, upload and download bytes).
 */
export function progressLine(
  label: string,
  done: number,
  total: number,
  elapsedMs: number,
  { bytes = false, bar = 24 }: LineStyle = {},
): string {
  const share = total > 0 ? Math.min(done / total, 1) : 1;
  const filled = Math.round(share * bar);
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const eta = rate > 0 ? duration((total - done) / rate) : '?';
  const amount = (n: number) => (bytes ? formatBytes(n) : String(n));
  const pace = bytes ? formatBytes(rate) : rate.toFixed(0);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(bar - filled)}] ${amount(done)}/${amount(total)} ${Math.floor(share * 100)}%  ${pace}/s  ETA ${eta}`;
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
