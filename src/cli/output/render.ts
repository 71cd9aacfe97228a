/**
 * Data on stdout in the chosen format: a table for people (on a TTY), JSON/NDJSON/CSV/YAML for
 * programs, and for lists `ids` (one id per line, for a pipe into the next command). JSON is
 * the default when stdout is not a terminal. `-o` is resolved here; what each format writes is
 * its own module's (formats/), reached through `formatterOf` only, so no command asks which
 * format it got. `--no-headers` (io.headers false) leaves out the header row of tables and CSV.
 */
import type { IO } from '../context.js';
import { usageError } from '../errors.js';
import { type Field, fieldColumns, pickPaths } from './fields.js';
import {
  type Column,
  type Envelope,
  FORMATS,
  type Format,
  formatterOf,
  forPeople,
  type Rows,
  type Shape,
} from './formats/index.js';

export { type Column, type Envelope, FORMATS, type Format, formatterOf, forPeople, type Rows };

/** The `--fields` names of `columns`: each header for the path its column shows. */
export const columnNames = <T>(columns: Column<T>[]): Record<string, string> =>
  Object.fromEntries(columns.flatMap((c) => (c.path ? [[c.header, c.path]] : [])));

/** How rows of one kind print, in the format chosen. */
export interface View<T, L = T> extends Shape<T, L> {
  format: Format;
}

/** The formats any output takes, and those for lists of things with ids only. */
const GENERAL = FORMATS.filter((f) => !formatterOf(f).idsOnly);
const IDS_ONLY = FORMATS.filter((f) => formatterOf(f).idsOnly);

/**
 * What `-o` accepts: the formats, `wide` (a table not fitted to the terminal), those for lists
 * only (`ids`: one id per line) and, last, `xlsx` (a workbook file: `users export --to` only).
 */
export const OUTPUT_CHOICES = [...GENERAL, 'wide', ...IDS_ONLY, 'xlsx'] as const;

/** What every output takes, for the errors that refuse one: the formats for programs first. */
const WORK_ANYWHERE = [
  ...GENERAL.filter((f) => !forPeople(f)),
  ...GENERAL.filter(forPeople),
  'wide',
];

const orList = (words: readonly string[]) =>
  words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : (words[0] ?? '');

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
  if (flag === 'xlsx') {
    throw usageError(
      `-o xlsx writes a workbook file, for users export --to people.xlsx; here use ${orList(WORK_ANYWHERE)}`,
    );
  }
  const format = FORMATS.find((f) => f === flag);
  if (format === undefined) {
    throw usageError(`-o/--output must be one of ${orList(WORK_ANYWHERE)}, got '${flag}'`);
  }
  if (formatterOf(format).idsOnly && !ids) {
    throw usageError(
      `-o ${format} prints one id per line, for users list and media list; here use ${orList(WORK_ANYWHERE)}`,
    );
  }
  return format;
}

/**
 * The format an endless stream (events tail, webhooks listen) follows in for `-o flag` (json
 * follows as NDJSON: an array that never closes is no JSON), or undefined without `-o`: the
 * command's own lines. A format that cannot follow is refused, naming what `command` prints
 * (one JSON `thing` per line).
 */
export function followFormat(
  flag: string | undefined,
  io: IO,
  command: string,
  thing: string,
): Format | undefined {
  if (flag === undefined) return undefined;
  const follows = formatterOf(resolveFormat(flag, io, { ids: true })).follows;
  if (follows === undefined) {
    throw usageError(
      `${command} prints lines, or one JSON ${thing} per line with -o ndjson (not -o ${flag})`,
    );
  }
  return follows;
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

export interface ListWriter<T> {
  write(row: T): Promise<void>;
  /** Finishes the output (the closing bracket, or the whole table); returns the row count. */
  end(trailer?: Record<string, unknown>): Promise<number>;
}

/**
 * Writes rows as they come (lists that follow every page, `--all`), in the view's format;
 * inside `envelope` when the list is one member of an object.
 */
export async function listWriter<T, L = T>(
  io: IO,
  view: View<T, L>,
  envelope?: Envelope,
): Promise<ListWriter<T>> {
  const rows = await formatterOf(view.format).begin(io, view, envelope);
  return { write: (row) => rows.row(row), end: (trailer) => rows.end(trailer) };
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

/** Renders one object: itself in JSON or YAML, a one-row table or CSV, its id. */
export async function renderOne<T>(
  io: IO,
  format: Format,
  row: T,
  columns: Column<T>[],
  json = (r: T): unknown => r,
) {
  await formatterOf(format).one(io, { columns, json }, row);
}

/**
 * Renders one record: as a two-column field/value table on a terminal (a user has too many
 * fields for one row), else like `renderOne` with the view's JSON shape or columns.
 */
export async function renderRecord<T>(io: IO, view: View<T>, row: T) {
  await formatterOf(view.format).one(io, { ...view, record: true }, row);
}
