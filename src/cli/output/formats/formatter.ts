/**
 * What one output format is: how it begins a list, writes each row, ends it, and prints one
 * object. Commands describe what they print (a Shape: columns for the tabular formats, a JSON
 * shape for the structured ones, an id) and never ask which format was chosen; each format's
 * module decides for itself (formats/<name>.ts, chosen in formats/index.ts).
 */
import { once } from 'node:events';
import type { IO } from '../../context.js';
import type { TableColumn } from '../table.js';
import type { Format } from './index.js';

export interface Column<T> extends TableColumn {
  value: (row: T) => unknown;
  /** The dotted path it shows, when it shows one: `--fields` takes its header for that path. */
  path?: string;
}

/**
 * How rows of one kind print. `L` is what a tabular line shows: the row itself, unless `lines`
 * splits a row into several (a plan's row: one CSV line per change).
 */
export interface Shape<T, L = T> {
  columns: Column<L>[];
  /** A row's machine shape (JSON, NDJSON, YAML). */
  json: (row: T) => unknown;
  /** A row's id, for `-o ids` (default: its `id`). */
  id?: (row: T) => unknown;
  /** The tabular lines of a row (default: the row itself, one line). */
  lines?: (row: T) => L[];
  /** On a table, one object prints as `field  value` lines (a user has too many for one row). */
  record?: boolean;
}

/**
 * A list that is one member of an object, `{...head, [key]: [rows], ...trailer}`: a plan's rows
 * and its summary, a check's steps and its verdict. The structured formats print the object
 * (NDJSON: the rows, then the trailer as one line); the tabular ones print the rows only.
 */
export interface Envelope {
  key: string;
  /** What is known before the first row. */
  head?: Record<string, unknown>;
}

export interface Rows<T> {
  row(row: T): Promise<void>;
  /** Finishes the output (the closing bracket, or the whole table); returns the row count. */
  end(trailer?: Record<string, unknown>): Promise<number>;
}

export interface Formatter {
  /** Made for a person at a terminal: commands add spinners, notes and their own summaries. */
  readonly forPeople: boolean;
  /** Prints only what has an id: `-o` offers it where a command lists things with ids. */
  readonly idsOnly: boolean;
  /**
   * The format a stream that never ends (events tail) prints in when this one is asked for,
   * if it can: a JSON array that never closes is no JSON, so `-o json` follows as NDJSON.
   */
  readonly follows?: Format;
  begin<T, L = T>(io: IO, shape: Shape<T, L>, envelope?: Envelope): Promise<Rows<T>>;
  one<T, L = T>(io: IO, shape: Shape<T, L>, row: T): Promise<void>;
}

/** Writes, waiting for a full stdout to drain (memory stays bounded on a slow pipe). */
export async function write(io: IO, text: string) {
  if (!io.stdout.write(text)) await once(io.stdout, 'drain');
}

/** A value as one cell of a table or CSV line. */
export const cell = (v: unknown) =>
  v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** The tabular lines of a row. */
export const linesOf = <T, L>(shape: Shape<T, L>, row: T): L[] =>
  // Without `lines`, a line is the row itself (L defaults to T).
  shape.lines ? shape.lines(row) : [row as unknown as L];

/** The defined members of an envelope's head or trailer (JSON.stringify leaves the rest out). */
export const membersOf = (object: Record<string, unknown> | undefined) =>
  Object.entries(object ?? {}).filter(([, v]) => v !== undefined);

export const idOf = (row: unknown) => (row as { id?: unknown } | null)?.id;
