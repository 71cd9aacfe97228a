/**
 * Byte progress for uploads and downloads: one bar per file in flight (bytes, %, rate, ETA) at
 * the bottom of stderr, redrawn at most 10 times a second, with result lines scrolling above
 * them. Only on a terminal: elsewhere the bars draw nothing and result lines are plain lines,
 * so a CI log gets one line per file.
 */
import type { IO } from '../context.js';
import { formatBytes, progressLine, stderrColumns } from './progress-line.js';
import { safeLines } from './text-safe.js';
import { clip } from './width.js';

export { formatBytes };

const BAR = 20;
const LABEL = 28;

/** One file's bar after `elapsedMs`, at most `width` cells (the name gives way first). */
export const transferLine = (
  label: string,
  done: number,
  total: number,
  elapsedMs: number,
  width?: number,
) =>
  progressLine(label, done, total, elapsedMs, {
    bytes: true,
    bar: BAR,
    labelWidth: LABEL,
    width,
  });

export interface TransferBar {
  /** Bytes moved so far. */
  update(done: number): void;
  /** Removes the bar. */
  remove(): void;
}

export interface TransferBars {
  add(label: string, total: number): TransferBar;
  /** A line above the bars (a file's result); on a non-terminal, just the line. */
  log(line: string): void;
  /** An extra line under the bars, e.g. "3 of 10 files done". */
  footer(text: string): void;
  /** Clears the bars (also run on Ctrl-C). */
  end(): void;
}

/** Bars shown at once; the rest are counted in one line (a terminal has only so many rows). */
const MAX_SHOWN = 8;

export function transferBars(io: IO, now = () => performance.now()): TransferBars {
  const tty = io.stderrIsTTY;
  const bars = new Set<{ label: string; total: number; done: number; start: number }>();
  let footer = '';
  let drawnLines = 0;
  let drawnAt = Number.NEGATIVE_INFINITY;
  let ended = false;

  const draw = (logs: string[] = []) => {
    if (ended) return;
    drawnAt = now();
    // Lines never wrap: a wrapped line would break moving back up.
    const width = stderrColumns(io);
    const shown = [...bars].slice(0, bars.size > MAX_SHOWN ? MAX_SHOWN - 1 : MAX_SHOWN);
    const lines = shown.map((b) =>
      transferLine(b.label, b.done, b.total, drawnAt - b.start, width),
    );
    if (bars.size > shown.length) lines.push(`… and ${bars.size - shown.length} more in flight`);
    if (footer && bars.size > 0) lines.push(footer);
    // Back to the first bar, clear to the end of the screen, then logs and bars again.
    let text = drawnLines > 0 ? `\r\u001b[${drawnLines}A\u001b[J` : '\r\u001b[J';
    for (const line of logs) text += `${line}\n`;
    for (const line of lines) text += `${clip(line, width)}\n`;
    drawnLines = lines.length;
    io.stderr.write(text);
  };

  return {
    add(label, total) {
      if (!tty) return { update() {}, remove() {} };
      const bar = { label, total, done: 0, start: now() };
      bars.add(bar);
      draw();
      return {
        update(done) {
          bar.done = done;
          if (now() - drawnAt >= 100) draw();
        },
        remove() {
          if (bars.delete(bar)) draw();
        },
      };
    },
    log(line) {
      const safe = safeLines(line);
      if (tty && !ended) draw([safe]);
      else io.stderr.write(`${safe}\n`);
    },
    footer(text) {
      footer = text;
    },
    end() {
      if (!tty || ended) return;
      bars.clear();
      draw();
      ended = true;
    },
  };
}
