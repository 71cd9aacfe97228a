/**
 * `users export`: the branch's users in the import's columns, so that importing the file again
 * changes nothing. Custom profile fields become `profile.<id>` columns (all of them, sorted),
 * which is why the users are read before the header is written.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { toCsvCell } from '../contract/csv-cell.js';
import type { ListableStatus } from '../contract/user.js';
import { writeWhole } from '../files/destination.js';
import { CREATE_ONLY, CUSTOM_PREFIX, FIELDS, WRITTEN_FIELDS } from './columns.js';
import { csvField, csvLine } from './csv-line.js';
import { exportValues, type Values } from './fields.js';
import { type RunCodec, SortedRuns } from './sorted-runs.js';
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

// One collator, not one per comparison: `a.localeCompare(b, 'en')` is defined as this compare.
const collator = new Intl.Collator('en');

/**
 * A user as the sort holds it: the two keys of the order, and the text written for it, made
 * once when its page arrives. A million users were each turned into CSV cells, compared by
 * lower-casing both keys, and written to disk as JSON and parsed back: those made most of the
 * export's CPU (bench/HISTORY.md, "`users export` at 1M, the CLI's side").
 */
interface ExportRow {
  /** '' when the user has none. */
  externalId: string;
  email: string;
  /** The two lower-cased, for the case-insensitive comparison. */
  externalIdKey: string;
  emailKey: string;
  /** CSV: the record of the export's own columns, without its line end; a workbook: ''. */
  line: string;
  /** CSV: the custom profile values as JSON, '' for none; a workbook: every value as JSON. */
  extra: string;
}

// String.prototype.toWellFormed, which ES2023 (this project's lib) lacks.
const wellFormed = (s: string) => s.replace(/\p{Surrogate}/gu, '\ufffd');

/**
 * The keys well-formed (a lone surrogate as U+FFFD): a run file holds UTF-8, where it becomes
 * that, so a row read back compares as one still held does (the file's bytes are the same).
 */
export const rowOf = (
  externalId: string,
  email: string,
  line: string,
  extra: string,
): ExportRow => {
  const id = wellFormed(externalId);
  const address = wellFormed(email);
  return {
    externalId: id,
    email: address,
    externalIdKey: id.toLowerCase(),
    emailKey: address.toLowerCase(),
    line,
    extra,
  };
};

/** Missing first, then case-insensitively, then exactly: the order the service's sort gave. */
function byKey(a: string, aKey: string, b: string, bKey: string): number {
  if (!a || !b) return (a ? 1 : 0) - (b ? 1 : 0);
  return collator.compare(aKey, bKey) || (a < b ? -1 : a > b ? 1 : 0);
}

const byExportOrder = (a: ExportRow, b: ExportRow) =>
  byKey(a.externalId, a.externalIdKey, b.externalId, b.externalIdKey) ||
  byKey(a.email, a.emailKey, b.email, b.emailKey);

/** A row in a run file: the lengths of its first three parts, then the four parts. */
export const EXPORT_ROW_CODEC: RunCodec<ExportRow> = {
  encode: (r) =>
    `${r.externalId.length},${r.email.length},${r.line.length},${r.externalId}${r.email}${r.line}${r.extra}`,
  decode: (text) => {
    const a = text.indexOf(',');
    const b = text.indexOf(',', a + 1);
    const c = text.indexOf(',', b + 1);
    const emailAt = c + 1 + Number(text.slice(0, a));
    const lineAt = emailAt + Number(text.slice(a + 1, b));
    const extraAt = lineAt + Number(text.slice(b + 1, c));
    return rowOf(
      text.slice(c + 1, emailAt),
      text.slice(emailAt, lineAt),
      text.slice(lineAt, extraAt),
      text.slice(extraAt),
    );
  },
};

export async function exportUsers(
  client: ImportClient,
  opts: ExportOptions,
): Promise<ExportResult> {
  const custom = new Set<string>();
  const statuses = opts.statuses ?? DEFAULT_EXPORT_STATUSES;
  const delimiter = opts.delimiter ?? ',';
  const xlsx = opts.format === 'xlsx';
  const result: ExportResult = { users: 0, withoutExternalId: 0, withoutEmail: 0 };
  // The default sort only: the real platform documents name keys alone. The stable order
  // (externalId, then email; missing first) is made here; a million users' rows would not fit
  // in memory, so beyond a run's worth they are sorted on disk. The pages come one ahead.
  const rows = new SortedRuns(byExportOrder, opts.runRows ?? EXPORT_RUN_ROWS, EXPORT_ROW_CODEC);
  // The longest value of each column, for a workbook's column widths.
  const widths = new Map<string, number>();
  try {
    for await (const user of client.iterateUsers({ status: statuses }, 1000, 1)) {
      opts.signal?.throwIfAborted();
      const values = exportValues(user);
      let customValues: Values | undefined;
      for (const f in values) {
        if (f.startsWith(CUSTOM_PREFIX)) {
          custom.add(f);
          customValues ??= {};
          customValues[f] = values[f] ?? null;
        }
        if (!xlsx) continue;
        const n = values[f]?.length ?? 0;
        if (n > (widths.get(f) ?? 0)) widths.set(f, n);
      }
      result.users++;
      const externalId = values.externalId ?? '';
      const email = values.email ?? '';
      if (!externalId) result.withoutExternalId++;
      if (!email) result.withoutEmail++;
      await rows.add(
        xlsx
          ? rowOf(externalId, email, '', JSON.stringify(values))
          : rowOf(
              externalId,
              email,
              csvLine(
                EXPORT_FIELDS.map((c) => toCsvCell(values[c] ?? '')),
                delimiter,
              ),
              customValues ? JSON.stringify(customValues) : '',
            ),
      );
    }
    const customColumns = [...custom].sort();
    const columns = [...EXPORT_FIELDS, ...customColumns];
    if (xlsx) {
      const { checkRowLimit, xlsxSheet } = await import('./export-xlsx.js');
      checkRowLimit(result.users, opts.maxRows);
      const sheet = await xlsxSheet(opts.out, columns, widths, opts.signal);
      for await (const batch of rows.sorted()) {
        opts.signal?.throwIfAborted();
        for (const row of batch) await sheet.row(JSON.parse(row.extra) as Values);
      }
      await sheet.end();
      return result;
    }
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
    // Custom columns come after the export's own, each user's from its JSON.
    const customCells = (extra: string) => {
      const values: Values = extra ? JSON.parse(extra) : {};
      let cells = '';
      for (const c of customColumns)
        cells += delimiter + csvField(toCsvCell(values[c] ?? ''), delimiter);
      return cells;
    };
    await write(`${opts.bom ? '\ufeff' : ''}${csvLine(columns, delimiter)}\n`);
    for await (const batch of rows.sorted()) {
      opts.signal?.throwIfAborted();
      let text = '';
      for (const row of batch) {
        text +=
          customColumns.length === 0 ? `${row.line}\n` : `${row.line}${customCells(row.extra)}\n`;
      }
      await write(text);
    }
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
export const templateHeader = (delimiter = ',') => `${csvLine(WRITTEN_FIELDS, delimiter)}\n`;
