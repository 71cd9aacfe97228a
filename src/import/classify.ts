/**
 * One row → one entry: its values, its match key, and what it leads to against the snapshot.
 * Both passes of the plan use this, so the second pass decides exactly as the first did.
 */
import { IDENTITY_FIELDS } from '../contract/identity.js';
import { customFieldsIssue } from '../contract/limits.js';
import { safeText } from '../contract/text-safe.js';
import type { UserStatus } from '../contract/user.js';
import { CUSTOM_PREFIX, type Layout, leaverOf } from './columns.js';
import { ImportError } from './errors.js';
import { type Change, diff, rowValues, type Values, validate } from './fields.js';
import type { CsvFile, CsvRecord } from './read.js';
import type { KnownUser, Snapshot } from './snapshot.js';
import { valuesOf } from './snapshot.js';
import type { Action, MatchField } from './types.js';

/** One row and what it leads to. */
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
  /** A leaver's status cell (e.g. "suspended=True"). */
  leaver?: string;
  /** A leaver whose user is deactivated already. */
  deactivated?: true;
  /** A deactivation's user, as it is before (activated, or pending: invited, never signed up). */
  was?: UserStatus;
}

export interface PlanOptions {
  match: MatchField;
  emptyClears?: boolean;
  sync?: boolean;
  /** Rows a `--resume` report marks done, with the key they had then. */
  done?: Map<number, { key: string }>;
  /** How many creates/updates to keep whole for the preview. Default 20. */
  preview?: number;
  /**
   * Keep pass one's reading of every row, so pass two reads nothing again. Costs memory per row:
   * for small files (run.ts decides), where reading the file twice costs more than holding it.
   */
  keepRows?: boolean;
}

const quoted = (v: string | null) =>
  v === null ? 'empty' : `'${safeText(v.length > 60 ? `${v.slice(0, 57)}…` : v)}'`;

function fieldCountError(rec: CsvRecord, width: number): string | undefined {
  const n = rec.fields.length;
  if (n < width) return `has ${n} field${n === 1 ? '' : 's'}, the header has ${width}`;
  if (n > width && rec.fields.slice(width).some((f) => f.trim() !== '')) {
    return `has ${n} fields, the header has ${width} (a delimiter inside an unquoted value?)`;
  }
  return undefined;
}

/** A user's custom fields (`profile.<id>` values) as the service stores them. */
function customOf(values: Values): Record<string, string> {
  const custom: Record<string, string> = {};
  for (const [field, value] of Object.entries(values)) {
    if (field.startsWith(CUSTOM_PREFIX) && value !== null) {
      custom[field.slice(CUSTOM_PREFIX.length)] = value;
    }
  }
  return custom;
}

/** What both passes need to turn a row into an entry. */
export function classifier(csv: CsvFile, layout: Layout, snapshot: Snapshot, opts: PlanOptions) {
  const { match } = opts;
  const columns = layout.fields;
  const names = new Map<string, string>();
  for (const i of layout.order) {
    const f = columns[i];
    if (f && !names.has(f)) names.set(f, csv.header[i]!);
  }
  if (!names.has(match)) {
    throw new ImportError(
      `${csv.file} has no ${match} column, the match key${match === 'externalId' ? ' (match by email with --match email)' : ''}`,
    );
  }
  const nameOf = (field: string) => names.get(field) ?? field;
  const matchColumn = layout.order.find((i) => columns[i] === match)!;
  const customColumns = columns.some((f) => f?.startsWith(CUSTOM_PREFIX));

  /** The row's values, or why the row cannot be used at all. */
  const read = (
    rec: CsvRecord,
  ): { values: Values; key?: string; error?: string; leaver?: string } => {
    const countError = rec.problem ?? fieldCountError(rec, csv.header.length);
    if (countError) {
      // The row is unusable, but its key cell still names a user the file lists: --sync must
      // not deactivate them (an unquoted comma after the key is the usual cause).
      const cell = rec.fields[matchColumn]?.trim();
      return { values: {}, ...(cell ? { key: cell } : {}), error: countError };
    }
    const values = rowValues(rec.fields, layout, opts.emptyClears ?? false);
    const key = values[match] ?? undefined;
    if (!key) return { values, error: `${nameOf(match)} is empty; it is the match key` };
    const leaver = leaverOf(rec.fields, layout);
    return leaver ? { values, key, leaver } : { values, key };
  };

  /**
   * The action for a row whose values are valid. A leaver is never created; with --sync a live
   * user is deactivated, otherwise left as they are.
   */
  const decide = (rec: CsvRecord, values: Values, key: string, leaver?: string): Entry => {
    const at = { row: rec.row, line: rec.line, key, ...(leaver ? { leaver } : {}) };
    const done = opts.done?.get(rec.row);
    if (done !== undefined) {
      if (done.key !== key) {
        throw new ImportError(
          `the --resume report was written for another file: row ${rec.row} has ${match} '${done.key}' there and '${key}' in ${csv.file}`,
        );
      }
      return { ...at, action: 'skip' };
    }
    const known = snapshot.holder(match, key);
    if (leaver) {
      if (known && opts.sync && known.status !== 'deactivated') {
        return { ...at, action: 'deactivate', id: known.id, was: known.status };
      }
      if (!known) return { ...at, action: 'leaver' };
      const already = known.status === 'deactivated' ? { deactivated: true as const } : {};
      return { ...at, action: 'leaver', id: known.id, ...already };
    }
    // Unpacked once: the checks and the diff all read the user's current values.
    const current = known && valuesOf(known);
    const refusal = taken(values, known) ?? customLimit(values, current);
    if (refusal) return { ...at, action: 'error', error: refusal };
    if (!known) {
      if (!values.email && !values.userName) {
        return { ...at, action: 'error', error: 'a new user needs an email or a userName' };
      }
      return { ...at, action: 'create', values };
    }
    const changes = diff(values, current!);
    if (opts.sync && known.status === 'deactivated') {
      // One who never signed up goes back to pending (the service's rule), not to activated,
      // unless the row gives them a one-time password.
      const to = known.neverSignedUp && !values.secret ? 'pending' : 'activated';
      changes.push({ field: 'status', from: 'deactivated', to });
    }
    if (changes.length === 0) return { ...at, action: 'unchanged', id: known.id };
    return { ...at, action: 'update', id: known.id, values, changes };
  };

  /**
   * A unique key the row would give its user (or a new one) that another user of the branch
   * holds: the service would answer 409, so the plan says so, naming that user.
   */
  const taken = (values: Values, own: KnownUser | undefined): string | undefined => {
    for (const field of IDENTITY_FIELDS) {
      const value = values[field];
      // The match key's holder is the row's own user, or nobody (decide looked it up).
      if (field === match) continue;
      const other = value ? snapshot.holder(field, value) : undefined;
      if (!other || other.id === own?.id) continue;
      const theirs = valuesOf(other)[match];
      const named = theirs ? `${match} '${safeText(theirs)}'` : `no ${match}`;
      return `${nameOf(field)} '${safeText(value ?? '')}' is already used by user ${other.id} (${named})`;
    }
    return undefined;
  };

  /** The service's bounds on custom fields, after the row's change (contract/limits). */
  const customLimit = (values: Values, current: Values | undefined): string | undefined => {
    // A row without custom fields leaves them as they are, and only growing them is refused.
    if (!customColumns) return undefined;
    const before = current ? customOf(current) : {};
    const after = { ...before };
    for (const [field, value] of Object.entries(values)) {
      if (!field.startsWith(CUSTOM_PREFIX)) continue;
      const id = field.slice(CUSTOM_PREFIX.length);
      if (value === null) delete after[id];
      else after[id] = value;
    }
    const issue = customFieldsIssue(before, after);
    return issue ? `profile ${issue.message}` : undefined;
  };

  const check = (values: Values) =>
    validate(values)
      .map((i) => `${nameOf(i.field)} ${quoted(values[i.field] ?? null)} ${i.message}`)
      .join('; ');

  return { read, decide, check, nameOf };
}
