/**
 * `users export`: the branch's users in the import's columns, so that importing the file again
 * changes nothing. Custom profile fields become `profile.<id>` columns (all of them, sorted),
 * which is why the users are read before the header is written.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { toCsvCell } from '../contract/csv-cell.js';
import type { ListableStatus } from '../contract/user.js';
import { writeWhole } from '../files/destination.js';
import { CREATE_ONLY, CUSTOM_PREFIX, FIELDS, WRITTEN_FIELDS } from './columns.js';
import { exportValues, type Values } from './fields.js';
import { SortedRuns } from './sorted-runs.js';
import type { ImportClient } from './types.js';

export const DEFAULT_EXPORT_STATUSES: ListableStatus[] = ['activated', 'pending'];

/** The columns of an export: a template's without secrets, and with the read-only ones. */
export const EXPORT_FIELDS = FIELDS.filter((f) => !CREATE_ONLY.has(f));

export interface ExportOptions {
  statuses?: ListableStatus[];
  out: Writable;
  delimiter?: string;
  /** A UTF-8 BOM first, for Excel. */
  bom?: boolean;
  /** Rows held in memory before sorting on disk (EXPORT_RUN_ROWS; tests make it small). */
  runRows?: number;
  /** Stops the export (Ctrl-C) with the signal's reason; its temp files are removed first. */
  signal?: AbortSignal;
  /** CSV (default) or an .xlsx workbook (export-xlsx.ts). */
  format?: 'csv' | 'xlsx';
  /** A sheet's rows, the header included (XLSX_MAX_ROWS; tests make it small). */
  maxRows?: number;
}

export interface ExportResult {
  users: number;
  /** Users without an externalId / email: a re-import cannot match them by that key. */
  withoutExternalId: number;
  withoutEmail: number;
}

/** Rows an export holds in memory at once; more are sorted on disk (sorted-runs.ts). */
export const EXPORT_RUN_ROWS = 50_000;
/** Rows turned into CSV text per write. */
const WRITE_ROWS = 1000;

// One collator, not one per comparison: `a.localeCompare(b, 'en')` is defined as this compare.
const collator = new Intl.Collator('en');

/** Missing first, then case-insensitively, then exactly: the order the service's sort gave. */
function byKey(a: string | null | undefined, b: string | null | undefined): number {
  if (!a || !b) return (a ? 1 : 0) - (b ? 1 : 0);
  const folded = collator.compare(a.toLowerCase(), b.toLowerCase());
  return folded || (a < b ? -1 : a > b ? 1 : 0);
}

const byExportOrder = (a: Values, b: Values) =>
  byKey(a.externalId, b.externalId) || byKey(a.email, b.email);

export async function exportUsers(
  client: ImportClient,
  opts: ExportOptions,
): Promise<ExportResult> {
  const custom = new Set<string>();
  const statuses = opts.statuses ?? DEFAULT_EXPORT_STATUSES;
  const result: ExportResult = { users: 0, withoutExternalId: 0, withoutEmail: 0 };
  // The default sort only: the real platform documents name keys alone. The stable order
  // (externalId, then email; missing first) is made here; a million users' rows would not fit
  // in memory, so beyond a run's worth they are sorted on disk. The pages come one ahead.
  const rows = new SortedRuns(byExportOrder, opts.runRows ?? EXPORT_RUN_ROWS);
  // The longest value of each column, for a workbook's column widths.
  const widths = new Map<string, number>();
  try {
    for await (const user of client.iterateUsers({ status: statuses }, 1000, 1)) {
      opts.signal?.throwIfAborted();
      const values = exportValues(user);
      for (const f in values) {
        if (f.startsWith(CUSTOM_PREFIX)) custom.add(f);
        const n = values[f]?.length ?? 0;
        if (n > (widths.get(f) ?? 0)) widths.set(f, n);
      }
      result.users++;
      if (!values.externalId) result.withoutExternalId++;
      if (!values.email) result.withoutEmail++;
      await rows.add(values);
    }
    const columns = [...EXPORT_FIELDS, ...[...custom].sort()];
    if (opts.format === 'xlsx') {
      const { checkRowLimit, xlsxSheet } = await import('./export-xlsx.js');
      checkRowLimit(result.users, opts.maxRows);
      const sheet = await xlsxSheet(opts.out, columns, widths, opts.signal);
      for await (const values of rows.sorted()) {
        opts.signal?.throwIfAborted();
        await sheet.row(values);
      }
      await sheet.end();
      return result;
    }
    const delimiter = opts.delimiter ?? ',';
    // Backpressure: nothing more is made while the destination has a full buffer.
    const write = async (text: string) => {
      if (opts.out.write(text)) return;
      try {
        await once(opts.out, 'drain', { signal: opts.signal });
      } catch (err) {
        opts.signal?.throwIfAborted();
        throw err;
      }
    };
    await write(`${opts.bom ? '\ufeff' : ''}${stringify([columns], { delimiter })}`);
    let lines: string[][] = [];
    for await (const values of rows.sorted()) {
      opts.signal?.throwIfAborted();
      lines.push(columns.map((c) => toCsvCell(String(values[c] ?? ''))));
      if (lines.length < WRITE_ROWS) continue;
      await write(stringify(lines, { delimiter }));
      lines = [];
    }
    if (lines.length > 0) await write(stringify(lines, { delimiter }));
  } finally {
    await rows.dispose();
  }
  return result;
}

/**
 * Exports to a file through a temporary one, renamed when complete: a failed export never leaves
 * a truncated file for a scheduled import to pick up.
 */
export async function exportToFile(
  client: ImportClient,
  path: string,
  opts: Omit<ExportOptions, 'out'>,
): Promise<ExportResult> {
  return writeWhole(path, (out) => exportUsers(client, { ...opts, out }));
}

/** `users import --template`: the header row with every known column. */
export const templateHeader = (delimiter = ',') => stringify([[...WRITTEN_FIELDS]], { delimiter });
