/**
 * Data on stdout in the chosen format: a table for people (on a TTY), JSON/NDJSON/CSV for
 * programs. JSON is the default when stdout is not a terminal.
 */
import type { IO } from '../context.js';
import { usageError } from '../errors.js';

export const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

export function resolveFormat(flag: string | undefined, io: IO): Format {
  if (flag === undefined) return io.stdoutIsTTY ? 'table' : 'json';
  if (!(FORMATS as readonly string[]).includes(flag)) {
    throw usageError(`-o/--output must be one of ${FORMATS.join(', ')}, got '${flag}'`);
  }
  return flag as Format;
}

const cell = (v: unknown) =>
  v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** Renders a list; `json` gives each row's machine shape (default: the row itself). */
export async function renderList<T>(
  io: IO,
  format: Format,
  rows: T[],
  columns: Column<T>[],
  json: (row: T) => unknown = (row) => row,
): Promise<void> {
  if (format === 'json') {
    io.stdout.write(`${JSON.stringify(rows.map(json), null, 2)}\n`);
  } else if (format === 'ndjson') {
    for (const row of rows) io.stdout.write(`${JSON.stringify(json(row))}\n`);
  } else if (format === 'csv') {
    const { stringify } = await import('csv-stringify/sync');
    io.stdout.write(
      stringify([
        columns.map((c) => c.header),
        ...rows.map((r) => columns.map((c) => cell(c.value(r)))),
      ]),
    );
  } else {
    const { default: Table } = await import('cli-table3');
    const table = new Table({
      head: columns.map((c) => c.header),
      style: io.color ? {} : { head: [], border: [] },
    });
    for (const row of rows) table.push(columns.map((c) => cell(c.value(row))));
    io.stdout.write(`${table.toString()}\n`);
  }
}

/** Renders one object: JSON unless a table was asked for (then one row). */
export async function renderOne<T>(
  io: IO,
  format: Format,
  row: T,
  columns: Column<T>[],
  json = (r: T): unknown => r,
) {
  if (format === 'json') io.stdout.write(`${JSON.stringify(json(row), null, 2)}\n`);
  else await renderList(io, format, [row], columns, json);
}
