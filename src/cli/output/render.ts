/**
 * Data on stdout in the chosen format: a table for people (on a TTY), JSON/NDJSON/CSV for
 * programs. JSON is the default when stdout is not a terminal. Lists stream row by row (except
 * tables, which need every row to size their columns).
 */
import { once } from 'node:events';
import { toCsvCell } from '../../contract/csv-cell.js';
import type { IO } from '../context.js';
import { usageError } from '../errors.js';
import { leaves, pathColumns, pickPaths } from './fields.js';
import type { TableColumn } from './table.js';
import { safeJson } from './text-safe.js';

export const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

export interface Column<T> extends TableColumn {
  value: (row: T) => unknown;
}

/** How rows of one kind print: columns for table/CSV, an object for JSON/NDJSON. */
export interface View<T> {
  format: Format;
  columns: Column<T>[];
  json: (row: T) => unknown;
}

/** What `-o` accepts: the formats, and `wide`, a table not fitted to the terminal. */
export const OUTPUT_CHOICES = [...FORMATS, 'wide'] as const;

export function resolveFormat(flag: string | undefined, io: IO): Format {
  if (flag === undefined) return io.stdoutIsTTY ? 'table' : 'json';
  if (flag === 'wide') {
    io.columns = undefined;
    return 'table';
  }
  if (!(FORMATS as readonly string[]).includes(flag)) {
    throw usageError(`-o/--output must be one of ${FORMATS.join(', ')}, got '${flag}'`);
  }
  return flag as Format;
}

/** The view for `--fields` (one column / JSON key per path), else the defaults. */
export function viewOf<T>(
  format: Format,
  columns: Column<T>[],
  fields?: string[],
  json: (row: T) => unknown = (row) => row,
): View<T> {
  if (!fields) return { format, columns, json };
  return { format, columns: pathColumns(fields), json: (row) => pickPaths(json(row), fields) };
}

const cell = (v: unknown) =>
  v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

async function write(io: IO, text: string) {
  if (!io.stdout.write(text)) await once(io.stdout, 'drain');
}

async function table(io: IO, columns: TableColumn[], rows: unknown[][]) {
  const { renderTable } = await import('./table.js');
  await renderTable(
    io,
    columns,
    rows.map((r) => r.map(cell)),
  );
}

export interface ListWriter<T> {
  write(row: T): Promise<void>;
  /** Finishes the output (the closing bracket, or the whole table); returns the row count. */
  end(): Promise<number>;
}

/** Writes rows as they come: for lists that follow every page (`--all`). */
export async function listWriter<T>(io: IO, view: View<T>): Promise<ListWriter<T>> {
  const { format, columns, json } = view;
  const buffered: T[] = [];
  let count = 0;
  const stringify = format === 'csv' ? (await import('csv-stringify/sync')).stringify : () => '';
  const csvRow = (values: unknown[]) => stringify([values.map(cell)]);
  return {
    async write(row) {
      count++;
      if (format === 'json') {
        const item = safeJson(JSON.stringify(json(row), null, 2)).replace(/\n/g, '\n  ');
        await write(io, `${count === 1 ? '[\n' : ',\n'}  ${item}`);
      } else if (format === 'ndjson') {
        await write(io, `${safeJson(JSON.stringify(json(row)))}\n`);
      } else if (format === 'csv') {
        if (count === 1) await write(io, csvRow(columns.map((c) => c.header)));
        await write(io, csvRow(columns.map((c) => toCsvCell(cell(c.value(row))))));
      } else {
        buffered.push(row);
      }
    },
    async end() {
      if (format === 'json') await write(io, count === 0 ? '[]\n' : '\n]\n');
      if (format === 'csv' && count === 0) await write(io, csvRow(columns.map((c) => c.header)));
      if (format === 'table') {
        await table(
          io,
          columns,
          buffered.map((r) => columns.map((c) => c.value(r))),
        );
      }
      return count;
    },
  };
}

/** Renders a list; `json` gives each row's machine shape (default: the row itself). */
export async function renderList<T>(
  io: IO,
  format: Format,
  rows: T[],
  columns: Column<T>[],
  json: (row: T) => unknown = (row) => row,
): Promise<void> {
  const out = await listWriter(io, { format, columns, json });
  for (const row of rows) await out.write(row);
  await out.end();
}

/** Renders one object: JSON unless a table was asked for (then one row). */
export async function renderOne<T>(
  io: IO,
  format: Format,
  row: T,
  columns: Column<T>[],
  json = (r: T): unknown => r,
) {
  if (format === 'json') await write(io, `${safeJson(JSON.stringify(json(row), null, 2))}\n`);
  else await renderList(io, format, [row], columns, json);
}

/**
 * Renders one record: as a two-column field/value table on a terminal (a user has too many
 * fields for one row), else like `renderOne` with the view's JSON shape or columns.
 */
export async function renderRecord<T>(io: IO, view: View<T>, row: T) {
  if (view.format !== 'table') {
    await renderOne(io, view.format, row, view.columns, view.json);
    return;
  }
  const { renderFields } = await import('./table.js');
  await renderFields(
    io,
    leaves(view.json(row)).map(([path, value]) => [path, cell(value)]),
  );
}
