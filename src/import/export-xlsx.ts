/**
 * `users export` as an .xlsx workbook, streamed (exceljs's WorkbookWriter, no shared strings
 * table, so memory does not grow with the users): one sheet, the header frozen with an
 * autofilter, columns as wide as their longest value. Every value is a text cell (format `@`),
 * so ids, externalIds, phone numbers and postal codes are never numbers in scientific notation,
 * and a value starting with `=` is text, never a formula (exceljs writes a formula only for a
 * {formula} object, which is never passed). A custom field holding a date (2024-03-01) is a
 * date cell. Reading the file (xlsx-read.ts) gives back exactly the values written.
 */
import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { importUsageError } from './errors.js';

/** Excel's rows per sheet, the header included. */
export const XLSX_MAX_ROWS = 1_048_576;

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MAX_WIDTH = 60;

/** A custom field's ISO date as a date (UTC midnight), when it is a real day. */
function dayOf(field: string, value: string): Date | undefined {
  if (!field.startsWith('profile.')) return undefined;
  const m = ISO_DAY.exec(value);
  if (!m) return undefined;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toISOString().startsWith(value) ? date : undefined;
}

/** Refuses, before anything is written, more users than one sheet holds. */
export function checkRowLimit(users: number, maxRows = XLSX_MAX_ROWS) {
  if (users + 1 <= maxRows) return;
  throw importUsageError(
    `${users.toLocaleString('en')} users do not fit in one .xlsx sheet (Excel's limit is ${maxRows.toLocaleString('en')} rows, the header included): export them as CSV (--to users.csv), or fewer at a time with --status`,
  );
}

type Sink = Writable & { _writableState?: { length: number } };
const pending = (s: Sink) => s.writableLength ?? s._writableState?.length ?? 0;

export interface SheetWriter {
  row(values: Record<string, string | null | undefined>): Promise<void>;
  end(): Promise<void>;
}

/** A sheet of `columns` (widths in characters) streamed into `out`; `out` is not ended. */
export async function xlsxSheet(
  out: Writable,
  columns: string[],
  widths: Map<string, number>,
  signal?: AbortSignal,
): Promise<SheetWriter> {
  const { default: ExcelJS } = await import('exceljs');
  const zip = new PassThrough();
  zip.pipe(out, { end: false });
  const done = once(zip, 'end');
  done.catch(() => {});
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: zip,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = book.addWorksheet('Users', {
    views: [{ state: 'frozen', ySplit: 1, xSplit: 0 }],
  });
  sheet.columns = columns.map((key) => ({
    key,
    width: Math.min(MAX_WIDTH, Math.max(key.length, widths.get(key) ?? 0) + 2),
    style: { numFmt: '@' },
  }));
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: columns.length } };
  const header = sheet.addRow(columns);
  header.font = { bold: true };
  header.commit();
  let rows = 0;
  // exceljs's sheet stream hands its 64 KiB buffers to the zip's deflate without waiting for
  // it (utils/stream-buf.js), so a fast source would pile the whole sheet up in memory: wait
  // until the stream the zip reads it through, and the file, have room again.
  const buffered = (sheet as unknown as { stream: { pipes?: Sink[] } }).stream;
  const caughtUp = async () => {
    for (let turns = 0; !buffered.pipes?.length && turns < 1000; turns++) await setImmediate();
    // (archiver's streams are readable-stream 3's: no writableNeedDrain nor writableLength,
    // so its state is read; 'drain' comes once a write was refused, which this length means.)
    const deflate = buffered.pipes?.[0];
    while (deflate && pending(deflate) >= (deflate.writableHighWaterMark ?? 16_384)) {
      await once(deflate, 'drain', { signal });
    }
    while (out.writableNeedDrain) await once(out, 'drain', { signal });
    signal?.throwIfAborted();
  };
  return {
    async row(values) {
      // An empty value is no cell at all (undefined; null would write an empty styled one).
      const row = sheet.addRow(
        columns.map((c) => {
          const value = values[c] ?? '';
          return value === '' ? undefined : (dayOf(c, value) ?? value);
        }),
      );
      row.eachCell((cell) => {
        if (cell.value instanceof Date) cell.numFmt = 'yyyy-mm-dd';
      });
      row.commit();
      if (++rows % 200 === 0) await caughtUp();
    },
    async end() {
      sheet.commit();
      await book.commit();
      await done;
    },
  };
}
