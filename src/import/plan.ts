/**
 * Every row checked and classified before anything is sent: field count, values (the
 * contract's schemas), the match key, duplicates inside the file, then create / update (with
 * the changed fields) / unchanged against the branch snapshot. `--sync` adds who would be
 * deactivated.
 */
import { CliError } from '../cli/errors.js';
import { type Change, diff, rowValues, type Values, validate } from './fields.js';
import type { CsvFile, CsvRecord } from './read.js';
import { type KnownUser, matchKey, type Snapshot } from './snapshot.js';
import type { Action, MatchField } from './types.js';

export interface Entry {
  row: number;
  line: number;
  /** The match-key value as written in the file. */
  key?: string;
  action: Action;
  id?: string;
  values?: Values;
  changes?: Change[];
  error?: string;
}

export interface Plan {
  file: string;
  delimiter: string;
  rows: number;
  entries: Entry[];
  /** `--sync`: users of the branch that the file does not name and that are not deactivated. */
  deactivate: KnownUser[];
  /** Activated and pending users of the branch before the import: the base of a % limit. */
  active: number;
}

export interface PlanOptions {
  match: MatchField;
  emptyClears?: boolean;
  sync?: boolean;
  /** Rows a `--resume` report marks done, with the key they had then. */
  done?: Map<number, { key: string }>;
}

/** The unique fields of a user, as the service compares them. */
const UNIQUE: Record<string, (v: string) => string> = {
  externalId: (v) => v,
  email: (v) => v.toLowerCase(),
  userName: (v) => v.toLowerCase(),
};

const quoted = (v: string | null) =>
  v === null ? 'empty' : `'${v.length > 60 ? `${v.slice(0, 57)}…` : v}'`;

function fieldCountError(rec: CsvRecord, width: number): string | undefined {
  const n = rec.fields.length;
  if (n < width) return `has ${n} field${n === 1 ? '' : 's'}, the header has ${width}`;
  if (n > width && rec.fields.slice(width).some((f) => f.trim() !== '')) {
    return `has ${n} fields, the header has ${width} (a delimiter inside an unquoted value?)`;
  }
  return undefined;
}

export async function buildPlan(
  csv: CsvFile,
  columns: (string | null)[],
  snapshot: Snapshot,
  opts: PlanOptions,
): Promise<Plan> {
  const { match } = opts;
  const names = new Map(columns.flatMap((f, i) => (f ? [[f, csv.header[i]!] as const] : [])));
  if (!names.has(match)) {
    throw new CliError(
      `${csv.file} has no ${match} column, the match key${match === 'externalId' ? ' (match by email with --match email)' : ''}`,
    );
  }
  const entries: Entry[] = [];
  const fileKeys = new Set<string>();
  const firstSeen = new Map<string, { at: number; value: string }>();
  const duplicates = new Map<string, { field: string; value: string; at: number[] }>();

  const classify = (rec: CsvRecord, values: Values, key: string): Omit<Entry, 'row' | 'line'> => {
    const issues = validate(values);
    if (issues.length > 0) {
      const what = issues.map(
        (i) => `${names.get(i.field) ?? i.field} ${quoted(values[i.field] ?? null)} ${i.message}`,
      );
      return { key, action: 'error', error: what.join('; ') };
    }
    const done = opts.done?.get(rec.row);
    if (done !== undefined) {
      if (done.key !== key) {
        throw new CliError(
          `the --resume report was written for another file: row ${rec.row} has ${match} '${done.key}' there and '${key}' in ${csv.file}`,
        );
      }
      return { key, action: 'skip' };
    }
    const known = snapshot.byKey.get(matchKey(match, key));
    if (!known) {
      if (!values.email && !values.userName) {
        return { key, action: 'error', error: 'a new user needs an email or a userName' };
      }
      return { key, action: 'create', values };
    }
    const changes = diff(values, known.values);
    if (opts.sync && known.status === 'deactivated') {
      changes.push({ field: 'status', from: 'deactivated', to: 'activated' });
    }
    if (changes.length === 0) return { key, action: 'unchanged', id: known.id };
    return { key, action: 'update', id: known.id, values, changes };
  };

  for await (const rec of csv.records) {
    const at = entries.length;
    const countError = fieldCountError(rec, csv.header.length);
    if (countError) {
      entries.push({ row: rec.row, line: rec.line, action: 'error', error: countError });
      continue;
    }
    const values = rowValues(rec.fields, columns, opts.emptyClears ?? false);
    for (const [field, norm] of Object.entries(UNIQUE)) {
      const value = values[field];
      if (!value) continue;
      const id = `${field}\0${norm(value)}`;
      const first = firstSeen.get(id);
      if (first === undefined) firstSeen.set(id, { at, value });
      else {
        const dup = duplicates.get(id) ?? { field, value: first.value, at: [first.at] };
        dup.at.push(at);
        duplicates.set(id, dup);
      }
    }
    const key = values[match];
    if (!key) {
      entries.push({
        row: rec.row,
        line: rec.line,
        action: 'error',
        error: `${names.get(match)} is empty; it is the match key`,
      });
      continue;
    }
    fileKeys.add(matchKey(match, key));
    entries.push({ row: rec.row, line: rec.line, ...classify(rec, values, key) });
  }

  // Two rows for one user (or one email): no way to tell which is right, so neither is applied.
  for (const { field, value, at } of duplicates.values()) {
    const lines = at.map((i) => entries[i]!.line).join(', ');
    for (const i of at) {
      const e = entries[i]!;
      const error = `${names.get(field) ?? field} '${value}' appears on several lines (${lines})`;
      entries[i] = {
        row: e.row,
        line: e.line,
        key: e.key,
        action: 'error',
        error: e.error ? `${error}; ${e.error}` : error,
      };
    }
  }

  const live = snapshot.users.filter((u) => u.status !== 'deactivated');
  const deactivate = opts.sync
    ? live.filter((u) => {
        const value = u.values[match];
        return !value || !fileKeys.has(matchKey(match, value));
      })
    : [];
  return {
    file: csv.file,
    delimiter: csv.delimiter,
    rows: entries.length,
    entries,
    deactivate,
    active: live.length,
  };
}
