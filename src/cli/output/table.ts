/**
 * Tables for people: a header, aligned columns, no rule between rows, fitted to the terminal
 * (`io.columns`; none: as wide as the cells). A table never gets wider than the terminal: when
 * it would, columns are dropped (empty ones first, then the least kept, right to left) and
 * shortened with an ellipsis, but a `whole` column (an id, to copy into the next command) is
 * never cut. Below 40 columns, or when the whole columns alone do not fit, each row prints as a
 * block of `field │ value` lines (psql's `\x`). Written in chunks that yield to the event loop,
 * so a long table keeps its pace (bench/README.md, "Figures from src/ comments") and Ctrl-C is
 * served while it renders.
 * Cells are made safe to show (text-safe.ts).
 */
import { once } from 'node:events';
import type { IO } from '../context.js';
import { paint } from './style.js';
import { safeText } from './text-safe.js';
import { clip, clipMiddle, displayWidth, pad, pieces, wrapWords } from './width.js';

export { displayWidth };

const CHUNK = 500;
/** A column is shortened to no less than this (or its own width, if less). */
const MIN_WIDTH = 10;
/** Narrower terminals get one block per record. */
export const RECORD_BELOW = 40;

export interface TableColumn {
  header: string;
  /** A long cell goes on over more lines instead of being cut (a plan's changes). */
  wrap?: boolean;
  /** Never cut nor dropped (default: a column headed `id` or `….id`). */
  whole?: boolean;
  /** When the terminal is too narrow, lower values are dropped first (default 0). */
  keep?: number;
  /**
   * What people tell rows apart by (an email, a name): shortened only once the other columns
   * are as short as they go, and then in its middle, so both ends stay.
   */
  identifies?: boolean;
}

const isWhole = (c: TableColumn) => c.whole ?? (c.header === 'id' || c.header.endsWith('.id'));

/** The columns shown and their widths, or undefined: print records instead of a table. */
export interface Fit {
  shown: number[];
  widths: number[];
}

const tableWidth = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + 3 * widths.length + 1;

/** Which columns fit `limit` cells in all (borders included), and how wide each is. */
export function fitColumns(
  columns: TableColumn[],
  natural: number[],
  empty: boolean[],
  limit: number | undefined,
): Fit | undefined {
  const all = columns.map((_, i) => i);
  if (!limit || tableWidth(natural) <= limit) return { shown: all, widths: natural };
  if (limit < RECORD_BELOW) return undefined;
  const min = (i: number) =>
    isWhole(columns[i]!) ? natural[i]! : Math.min(natural[i]!, MIN_WIDTH);
  // Empty columns first, then the least kept, right to left.
  const dropOrder = all
    .filter((i) => !isWhole(columns[i]!))
    .sort(
      (a, b) =>
        Number(empty[b]) - Number(empty[a]) ||
        (columns[a]!.keep ?? 0) - (columns[b]!.keep ?? 0) ||
        b - a,
    );
  const shown = new Set(all);
  const widthsOf = (width: (i: number) => number) => [...shown].map(width);
  for (const i of dropOrder) {
    const fitsWhole = tableWidth(widthsOf((c) => natural[c]!)) <= limit;
    const fitsShort = tableWidth(widthsOf(min)) <= limit;
    // An empty column goes before anything is shortened; others only when shortening is not enough.
    if (fitsWhole || (!empty[i] && fitsShort)) break;
    shown.delete(i);
  }
  const kept = [...shown];
  if (tableWidth(kept.map(min)) > limit || (kept.length < 2 && columns.length >= 2)) {
    return undefined;
  }
  const widths = kept.map((i) => natural[i]!);
  // The widest column gives way first; one that identifies the row only when no other can.
  const widestOf = (identifying: boolean) => {
    let widest = -1;
    for (let k = 0; k < kept.length; k++) {
      if (Boolean(columns[kept[k]!]!.identifies) !== identifying) continue;
      if (widths[k]! > min(kept[k]!) && (widest < 0 || widths[k]! > widths[widest]!)) widest = k;
    }
    return widest;
  };
  while (tableWidth(widths) > limit) {
    const widest = widestOf(false) >= 0 ? widestOf(false) : widestOf(true);
    if (widest < 0) break;
    widths[widest]!--;
  }
  return { shown: kept, widths };
}

async function write(io: IO, text: string) {
  if (!io.stdout.write(text)) await once(io.stdout, 'drain');
}

const yieldToEvents = () => new Promise((resolve) => setImmediate(resolve));

/** Writes `rows` as `render` makes them, CHUNK rows at a time. */
async function writeRows(io: IO, rows: string[][], render: (row: string[], n: number) => string) {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await write(
      io,
      rows
        .slice(i, i + CHUNK)
        .map((r, k) => render(r, i + k))
        .join(''),
    );
    await yieldToEvents();
  }
}

const URL_VALUE = /^https?:\/\/\S+$/;

/** psql's `\x`: a `-[ RECORD n ]` line, then `field │ value` per column, long values wrapped. */
async function renderRecords(io: IO, columns: TableColumn[], rows: string[][], limit: number) {
  const heads = columns.map((c) => safeText(c.header));
  const label = Math.min(Math.max(...heads.map(displayWidth)), Math.floor(limit / 3));
  const room = Math.max(1, limit - label - 3);
  const line = (head: string, value: string) =>
    `${paint(io, 'cyan', pad(head, label))} │ ${value}`.trimEnd();
  await writeRows(io, rows, (row, n) => {
    const title = `-[ RECORD ${n + 1} ]`;
    let out = `${title}${'─'.repeat(Math.max(0, limit - displayWidth(title)))}\n`;
    columns.forEach((c, i) => {
      const head = clip(heads[i]!, label);
      const value = row[i] ?? '';
      if (displayWidth(value) <= room) out += `${line(head, value)}\n`;
      // A whole value too long to sit beside its name gets a line of its own, uncut.
      else if (isWhole(c)) out += `${line(head, '')}\n${value}\n`;
      // A (signed) URL wraps over lines nobody reads: its start and its end, on a terminal
      // (the whole URL is in -o json, or in any output that is piped).
      else if (URL_VALUE.test(value)) out += `${line(head, clipMiddle(value, room))}\n`;
      else {
        const parts = pieces(value, room);
        out += `${line(head, parts[0]!)}\n`;
        for (const part of parts.slice(1)) out += `${line('', part)}\n`;
      }
    });
    return out;
  });
}

/** Renders `rows` (one string per column) under `columns`, fitted to `io.columns`. */
export async function renderTable(io: IO, columns: TableColumn[], rows: string[][]): Promise<void> {
  const safeRows = rows.map((r) => r.map(safeText));
  const natural = columns.map((c) => displayWidth(safeText(c.header)));
  const empty = columns.map(() => true);
  for (let i = 0; i < safeRows.length; i++) {
    const row = safeRows[i]!;
    for (let c = 0; c < row.length; c++) {
      const w = displayWidth(row[c]!);
      if (w > natural[c]!) natural[c] = w;
      if (w > 0) empty[c] = false;
    }
    if (i % (CHUNK * 10) === 0 && i > 0) await yieldToEvents();
  }
  const fit = fitColumns(columns, natural, empty, io.columns);
  if (!fit) {
    await renderRecords(io, columns, safeRows, io.columns!);
    return;
  }
  const { shown, widths } = fit;
  const hidden = columns.filter((_, i) => !shown.includes(i) && !empty[i]);
  const rule = (l: string, m: string, r: string) =>
    `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}\n`;
  const physical = (cells: string[], styled?: (s: string) => string) =>
    `│${cells
      .map((c, k) => {
        const cut = columns[shown[k]!]!.identifies ? clipMiddle : clip;
        const text = pad(cut(c, widths[k]!), widths[k]!);
        return ` ${styled ? styled(text) : text} `;
      })
      .join('│')}│\n`;
  const line = (row: string[], styled?: (s: string) => string) => {
    const cells = shown.map((i) => row[i] ?? '');
    const wraps = shown.map((i) => columns[i]!.wrap ?? false);
    if (!wraps.some((w, k) => w && displayWidth(cells[k]!) > widths[k]!)) {
      return physical(cells, styled);
    }
    // At spaces where it can, so `users:read, users:write` does not break inside a word.
    const wrapped = (c: string, w: number) => wrapWords(c, w).flatMap((l) => pieces(l, w));
    const split = cells.map((c, k) => (wraps[k] ? wrapped(c, widths[k]!) : [c]));
    const height = Math.max(...split.map((p) => p.length));
    let out = '';
    for (let h = 0; h < height; h++) {
      out += physical(
        split.map((p) => p[h] ?? ''),
        styled,
      );
    }
    return out;
  };
  const head = columns.map((c) => safeText(c.header));
  const header =
    io.headers === false ? '' : line(head, (h) => paint(io, 'cyan', h)) + rule('├', '┼', '┤');
  await write(io, rule('┌', '┬', '┐') + header);
  await writeRows(io, safeRows, (r) => line(r));
  await write(io, rule('└', '┴', '┘'));
  if (hidden.length > 0) {
    const names = hidden.map((c) => safeText(c.header)).join(', ');
    const text = `hidden to fit ${io.columns} columns: ${names} (-o wide shows all)`;
    io.stderr.write(`${wrapWords(text, io.columns!).join('\n')}\n`);
  }
}

/**
 * One record as a `field │ value` table; when that is wider than the terminal, the `\x` block
 * instead, where a value wraps under its name rather than an id being cut.
 */
export async function renderFields(io: IO, fields: [string, string][]): Promise<void> {
  const safe = fields.map(([f, v]) => [safeText(f), safeText(v)]);
  const width = (k: number) => Math.max(5, ...safe.map((r) => displayWidth(r[k]!)));
  if (io.columns !== undefined && tableWidth([width(0), width(1)]) > io.columns) {
    await renderRecords(
      io,
      fields.map(([header]) => ({ header })),
      [fields.map(([, value]) => value).map(safeText)],
      io.columns,
    );
    return;
  }
  await renderTable(io, [{ header: 'field' }, { header: 'value' }], fields);
}
