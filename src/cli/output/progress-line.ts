/**
 * Progress on stderr: on a terminal a one-line bar (done/total, rate, ETA) redrawn at most 10
 * times a second; in a log a plain line every tenth of the work or 10 s (logLines).
 */

import type { Progress } from '../../import/run.js';
import type { IO } from '../context.js';
import { safeText } from './text-safe.js';
import { clip, clipStart, displayWidth, pad } from './width.js';

export type { Progress };

/**
 * `999 B`, `21.6 KiB`, `1 GiB`: binary units, the one system every size message uses (the
 * limits are set in them: a 1 GiB upload, a 64 MiB answer), so figures compare at a glance.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = -1;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  // 1023.6 KiB would round to "1024 KiB": show it as the next unit instead.
  if (Math.round(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
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
  /** The label is padded (or cut from the front) to this many cells, so bars line up. */
  labelWidth?: number;
  /** The line's most cells (a terminal's width): the bar and label give way first. */
  width?: number;
}

/** Narrower than this, a bar or label is not worth its cells. */
const MIN_PART = 8;

/**
 * One progress line: `label [####----] done/total share%  rate/s  ETA t`. The one format of
 * every progress display (import rows, upload and download bytes). Fitted to `width`, the bar
 * shrinks, then the label (its end kept), then the amounts and the bar go, then the label:
 * share, rate and ETA stay.
 */
export function progressLine(
  label: string,
  done: number,
  total: number,
  elapsedMs: number,
  { bytes = false, bar = 24, labelWidth, width }: LineStyle = {},
): string {
  const share = total > 0 ? Math.min(done / total, 1) : 1;
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const eta = rate > 0 ? duration((total - done) / rate) : '?';
  const amount = (n: number) => (bytes ? formatBytes(n) : String(n));
  const pace = bytes ? formatBytes(rate) : rate.toFixed(0);
  const tail = `${Math.floor(share * 100)}%  ${pace}/s  ETA ${eta}`;
  const name = safeText(label);
  const full = { name: labelWidth ?? displayWidth(name), bar };
  const parts = {
    ...full,
    amounts: `${amount(done)}/${amount(total)}`,
  };
  const line = () => {
    const filled = Math.round(share * parts.bar);
    return [
      parts.name > 0 ? pad(clipStart(name, parts.name), parts.name) : '',
      parts.bar > 0 ? `[${'#'.repeat(filled)}${'-'.repeat(parts.bar - filled)}]` : '',
      parts.amounts,
      tail,
    ]
      .filter(Boolean)
      .join(' ');
  };
  if (width === undefined) return line();
  const over = () => displayWidth(line()) - width;
  const shrink = (key: 'name' | 'bar', floor: number) => {
    if (over() > 0) parts[key] = Math.min(parts[key], Math.max(floor, parts[key] - over()));
  };
  shrink('bar', MIN_PART);
  shrink('name', MIN_PART);
  if (over() > 0) parts.amounts = '';
  if (over() > 0) parts.bar = 0;
  shrink('name', 2);
  if (over() > 0) parts.name = 0;
  // What a dropped part freed goes back to the label, then the bar.
  for (const key of ['name', 'bar'] as const) {
    if (parts[key] > 0) parts[key] = Math.min(full[key], parts[key] - over());
  }
  return clip(line(), width);
}

/** The usable width of the terminal on stderr (one cell spare: no wrap at the edge), 80 if unknown. */
export const stderrColumns = (io: IO) =>
  Math.max(20, ((io.stderr as { columns?: number }).columns || 80) - 1);

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
    // A line wider than the terminal would wrap, and `\r` would redraw only its last part.
    const width = stderrColumns(io);
    io.stderr.write(`\r\u001b[2K${progressLine(label, done, total, drawn - start, { width })}`);
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
