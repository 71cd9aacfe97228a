/**
 * Tables for people: a header, aligned columns, no rule between rows, fitted to the terminal by
 * shortening the widest columns with an ellipsis (as gh does). Written in chunks that yield to
 * the event loop, so 60,000 rows render in well under a second each 10,000 and Ctrl-C is
 * served while they do. Cells are made safe to show (text-safe.ts).
 */
import { once } from 'node:events';
import type { IO } from '../context.js';
import { paint } from './style.js';
import { safeText } from './text-safe.js';

const CHUNK = 500;
const MIN_WIDTH = 6;

/** Display width: wide East Asian characters and emoji take two cells, combining marks none. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const MARK = /\p{M}/u;

export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += MARK.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
  return w;
}

/** `s` cut to `width` cells, ending in `…` when cut. */
function clip(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = MARK.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** `s` in pieces of at most `width` cells, for a column that wraps instead of cutting. */
function pieces(s: string, width: number): string[] {
  const out: string[] = [];
  let piece = '';
  let w = 0;
  for (const ch of s) {
    const cw = MARK.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
    if (w + cw > width && piece !== '') {
      out.push(piece);
      piece = '';
      w = 0;
    }
    piece += ch;
    w += cw;
  }
  return [...out, piece];
}

const pad = (s: string, width: number) => s + ' '.repeat(Math.max(0, width - displayWidth(s)));

/** Column widths that fit `limit` cells in all (borders included), taken from the widest first. */
function fitWidths(natural: number[], limit: number | undefined): number[] {
  const widths = [...natural];
  if (!limit) return widths;
  const total = () => widths.reduce((a, b) => a + b, 0) + 3 * widths.length + 1;
  while (total() > limit) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= MIN_WIDTH) break;
    widths[widest]!--;
  }
  return widths;
}

async function write(io: IO, text: string) {
  if (!io.stdout.write(text)) await once(io.stdout, 'drain');
}

const yieldToEvents = () => new Promise((resolve) => setImmediate(resolve));

/**
 * `wrap[i]`: column i wraps a long cell onto more lines instead of cutting it (a plan's
 * changes: a person reviewing it must see all of them).
 */
export async function renderTable(
  io: IO,
  head: string[],
  rows: string[][],
  wrap: boolean[] = [],
): Promise<void> {
  const safeRows = rows.map((r) => r.map(safeText));
  const natural = head.map((h) => displayWidth(h));
  for (let i = 0; i < safeRows.length; i++) {
    const row = safeRows[i]!;
    for (let c = 0; c < row.length; c++) {
      const w = displayWidth(row[c]!);
      if (w > natural[c]!) natural[c] = w;
    }
    if (i % (CHUNK * 10) === 0 && i > 0) await yieldToEvents();
  }
  const widths = fitWidths(natural, io.columns);
  const rule = (l: string, m: string, r: string) =>
    `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}\n`;
  const physical = (cells: string[], styled?: (s: string) => string) =>
    `│${cells
      .map((c, i) => {
        const text = pad(clip(c, widths[i]!), widths[i]!);
        return ` ${styled ? styled(text) : text} `;
      })
      .join('│')}│\n`;
  const line = (cells: string[], styled?: (s: string) => string) => {
    if (!wrap.some((w, i) => w && displayWidth(cells[i] ?? '') > widths[i]!)) {
      return physical(cells, styled);
    }
    const split = cells.map((c, i) => (wrap[i] ? pieces(c, widths[i]!) : [c]));
    const height = Math.max(...split.map((p) => p.length));
    let out = '';
    for (let k = 0; k < height; k++)
      out += physical(
        split.map((p) => p[k] ?? ''),
        styled,
      );
    return out;
  };
  await write(
    io,
    rule('┌', '┬', '┐') + line(head, (h) => paint(io, 'cyan', h)) + rule('├', '┼', '┤'),
  );
  for (let i = 0; i < safeRows.length; i += CHUNK) {
    await write(
      io,
      safeRows
        .slice(i, i + CHUNK)
        .map((r) => line(r))
        .join(''),
    );
    await yieldToEvents();
  }
  await write(io, rule('└', '┴', '┘'));
}
