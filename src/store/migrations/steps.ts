/**
 * A migration's steps, declared once for both backends (render-sqlite.ts, render-postgres.ts
 * write each in its dialect). Types are named by what they hold, not by a dialect's word for
 * it; where the dialects really differ (search, keyset order, triggers) a step is written by
 * hand per dialect (`perDialect`), and says so.
 */
import { MAX_CUSTOM_KEY } from '../../contract/limits.js';
import type { MigrationProgress } from '../common/migration.js';
import type { Client } from '../postgres/db.js';
import type { Db } from '../sqlite/db.js';

export type Dialect = 'sqlite' | 'postgres';

/**
 * - `rowid`: the table's own key, given by the database (SQLite's rowid; an identity on PostgreSQL);
 * - `sequence`: a key never given twice, even after the newest rows are gone (AUTOINCREMENT;
 *   an identity a copy between backends may set);
 * - `bigint` for ids and counts that may pass 2^31, `integer` for those that never do.
 */
export type ColumnType =
  | 'text'
  | 'integer'
  | 'bigint'
  | 'boolean'
  | 'real'
  | 'bytes'
  | 'rowid'
  | 'sequence';

export interface Column {
  type: ColumnType;
  notNull?: boolean;
  /** The table's key where it is not a `rowid`/`sequence` (a text id the service makes). */
  primaryKey?: boolean;
  unique?: boolean;
  default?: string | number | boolean;
  /**
   * Compared and sorted byte by byte (keys, times, ids), as SQLite compares all text: on
   * PostgreSQL `COLLATE "C"` instead of the database's locale.
   */
  bytewise?: boolean;
  /** `table(column)` this one refers to. */
  references?: string;
}

/** A step written by hand for each backend; null: that backend has nothing to do here. */
export type SqliteStep = string | ((db: Db, progress?: MigrationProgress) => unknown[]);
export type PostgresStep = string | ((client: Client) => Promise<void>);

export type Step =
  | { kind: 'createTable'; table: string; columns: Record<string, Column> }
  | { kind: 'addColumn'; table: string; column: string; def: Column }
  | {
      kind: 'createIndex';
      name: string;
      table: string;
      columns: string[];
      unique?: boolean;
      where?: string;
    }
  | { kind: 'moveCustomField'; id: string; column: string }
  | { kind: 'sql'; sql: string }
  | { kind: 'perDialect'; sqlite: SqliteStep | null; postgres: PostgresStep | null }
  | { kind: 'on'; dialect: Dialect; steps: Step[] };

export interface Migration {
  /** Why it exists, for the reader (the SQL's own comments say how). */
  why: string;
  steps: Step[];
  /**
   * A version one backend has and the other has not (PostgreSQL's first release made in one
   * version what SQLite had made in six): the other backend's versions do not count it.
   */
  only?: Dialect;
}

/** Names the statements may hold as they are: a name is never quoted or taken from input. */
const NAME = /^[a-z][a-z0-9_]*$/;
const named = (...names: string[]) => {
  for (const n of names) if (!NAME.test(n)) throw new Error(`migration: '${n}' is not a name`);
};

export function createTable(table: string, columns: Record<string, Column>): Step {
  named(table, ...Object.keys(columns));
  return { kind: 'createTable', table, columns };
}

export function addColumn(table: string, column: string, def: Column): Step {
  named(table, column);
  return { kind: 'addColumn', table, column, def };
}

/** `columns` are the index's expressions, the same in both dialects (else: perDialect). */
export function createIndex(
  name: string,
  table: string,
  columns: string[],
  opts: { unique?: boolean; where?: string } = {},
): Step {
  named(name, table);
  return { kind: 'createIndex', name, table, columns, ...opts };
}

/** Custom field ids as the users service takes them (contract/schemas.ts customFieldIdSchema). */
const CUSTOM_ID = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_CUSTOM_KEY}}$`);

/**
 * A custom profile field promoted to a named one: each user's value moves from `custom` into
 * the field's column (which an earlier step adds) and leaves `custom`, in the migration's
 * transaction, so no stale copy is left behind (reads ignore one anyway: contract/user-fields.ts
 * customFields). A value the column holds already is kept.
 */
export function moveCustomField(id: string, column: string): Step {
  if (!CUSTOM_ID.test(id)) throw new Error(`migration: '${id}' is not a custom field id`);
  named(column);
  return { kind: 'moveCustomField', id, column };
}

/** SQL both dialects read alike (an UPDATE of plain columns, say). */
export const sql = (text: string): Step => ({ kind: 'sql', sql: text });

/** Written by hand for each backend, where they really differ. */
export const perDialect = (steps: {
  sqlite: SqliteStep | null;
  postgres: PostgresStep | null;
}): Step => ({ kind: 'perDialect', ...steps });

/** Steps only one backend takes in this version (the other made the same in another). */
export const on = (dialect: Dialect, ...steps: Step[]): Step => ({ kind: 'on', dialect, steps });
