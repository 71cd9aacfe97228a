/**
 * Data on stdout in the chosen format: a table for people (on a TTY), JSON/NDJSON/CSV/YAML for
 * programs, and for lists `ids` (one id per line, for a pipe into the next command). JSON is
 * the default when stdout is not a terminal. Lists stream row by row (except tables, which need
 * every row to size their columns). `--no-headers` (io.headers false) leaves out the header
 * row of tables and CSV.
 */
import { once } from 'node:events';
import { toCsvCell } from '../../contract/csv-cell.js';
import type { IO } from '../context.js';
import { usageError } from '../errors.js';
import { type Field, fieldColumns, leaves, pickPaths } from './fields.js';
import type { TableColumn } from './table.js';
import { safeJson, safeText } from './text-safe.js';

export const FORMATS = ['table', 'json', 'ndjson', 'csv', 'yaml'] as const;
/** `ids`: only where a command allows it (resolveFormat's `ids`). */
export type Format = (typeof FORMATS)[number] | 'ids';

export interface Column<T> extends TableColumn {
  value: (row: T) => unknown;
  /** The dotted path it shows, when it shows one: `--fields` takes its header for that path. */
  path?: string;
}

/** The `--fields` names of `columns`: each header for the path its column shows. */
export const columnNames = <T>(columns: Column<T>[]): Record<string, string> =>
  Object.fromEntries(columns.flatMap((c) => (c.path ? [[c.header, c.path]] : [])));

/** How rows of one kind print: columns for table/CSV, an object for JSON/NDJSON. */
export interface View<T> {
  format: Format;
  columns: Column<T>[];
  json: (row: T) => unknown;
  /** A row's id, for `-o ids` (default: its `id`). */
  id?: (row: T) => unknown;
}

/**
 * What `-o` accepts: the formats, `wide` (a table not fitted to the terminal), `ids` (one id
 * per line, for the lists) and `xlsx` (a workbook file: `users export --to` only).
 */
export const OUTPUT_CHOICES = [...FORMATS, 'wide', 'ids', 'xlsx'] as const;

/** `-o` resolved against the terminal; `ids`: the command prints a list of things with ids. */
export function resolveFormat(
  flag: string | undefined,
  io: IO,
  { ids = false }: { ids?: boolean } = {},
): Format {
  if (flag === undefined) return io.stdoutIsTTY ? 'table' : 'json';
  if (flag === 'wide') {
    io.columns = undefined;
    return 'table';
  }
  if (flag === 'ids') {
    if (ids) return 'ids';
    throw usageError(
      '-o ids prints one id per line, for users list and media list; here use json, ndjson, csv, yaml or table',
    );
  }
  if (flag === 'xlsx') {
    throw usageError(
      '-o xlsx writes a workbook file, for users export --to people.xlsx; here use json, ndjson, csv, yaml or table',
    );
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
  fields?: Field[],
  json: (row: T) => unknown = (row) => row,
): View<T> {
  if (!fields) return { format, columns, json };
  const paths = fields.map((f) => f.path);
  // A field the view has a column for keeps how that column fits (keep, identifies…).
  const fitOf = new Map(columns.map(({ value: _, path: __, ...fit }) => [fit.header, fit]));
  const picked = fieldColumns<T>(fields).map((c) => ({ ...fitOf.get(c.header), ...c }));
  return { format, columns: picked, json: (row) => pickPaths(json(row), paths) };
}

const cell = (v: unknown) =>
  v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

async function write(io: IO, text: string) {
  if (!io.stdout.write(text)) await once(io.stdout, 'drain');
}

const idOf = (row: unknown) => (row as { id?: unknown } | null)?.id;

async function yaml(value: unknown) {
  const { toYaml } = await import('./yaml.js');
  return toYaml(value);
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
  const { format, columns, json, id = idOf } = view;
  const headers = io.headers !== false;
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
      } else if (format === 'yaml') {
        await write(io, await yaml([json(row)]));
      } else if (format === 'ids') {
        await write(io, `${safeText(cell(id(row)))}\n`);
      } else if (format === 'csv') {
        if (count === 1 && headers) await write(io, csvRow(columns.map((c) => c.header)));
        await write(io, csvRow(columns.map((c) => toCsvCell(cell(c.value(row))))));
      } else {
        buffered.push(row);
      }
    },
    async end() {
      if (format === 'json') await write(io, count === 0 ? '[]\n' : '\n]\n');
      if (format === 'yaml' && count === 0) await write(io, '[]\n');
      if (format === 'csv' && count === 0 && headers) {
        await write(io, csvRow(columns.map((c) => c.header)));
      }
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
  else if (format === 'yaml') await write(io, await yaml(json(row)));
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
