/**
 * Every row checked and classified before anything is sent: field count, values (the
 * contract's schemas), the match key, duplicates inside the file, then create / update (with
 * the changed fields) / unchanged against the branch snapshot. `--sync` adds who would be
 * deactivated.
 *
 * Two passes over the file keep memory flat on 100,000 rows: `buildPlan` keeps a number per
 * row (its action and its key), the errors and the first changes; `replayPlan`
 * reads the file again and yields each row with what to send.
 */

import { IDENTITY_FIELDS, identityKey } from '../contract/identity.js';
import { safeText } from '../contract/text-safe.js';
import { sendsInvitation } from '../contract/user.js';
import { classifier, type Entry, type PlanOptions } from './classify.js';
import type { Layout } from './columns.js';
import { ImportError } from './errors.js';
import type { Values } from './fields.js';
import type { CsvFile, CsvRecord } from './read.js';
import { type KnownUser, type Snapshot, valuesOf } from './snapshot.js';
import type { MatchField } from './types.js';

export type { Entry, PlanOptions } from './classify.js';

type RowAction = 'create' | 'update' | 'unchanged' | 'error' | 'skip' | 'leaver' | 'deactivate';
const CODES: RowAction[] = [
  'create',
  'update',
  'unchanged',
  'error',
  'skip',
  'leaver',
  'deactivate',
];
const ERROR = CODES.indexOf('error');

export interface Plan {
  file: string;
  delimiter: string;
  match: MatchField;
  rows: number;
  counts: Record<RowAction, number>;
  /** The first creates and updates, with their values and changes (for a dry run's table). */
  preview: Entry[];
  /** Every row that fails the checks, in file order. */
  errors: Entry[];
  /** `--sync`: users of the branch that the file does not name and that are not deactivated. */
  deactivate: KnownUser[];
  /** The status columns read (empty: the file has none, so nobody is a leaver). */
  statusColumns: string[];
  /** The first rows marked as leavers (action `leaver`, or `deactivate` with --sync). */
  leavers: Entry[];
  /** Creates that invite (contract/user.ts sendsInvitation): what a real run sends (unless --no-send-mail). */
  invitations: number;
  /** Activated and pending users of the branch before the import: the base of a % limit. */
  active: number;
  /** Per row (index = row - 1): the action's code, and the key (to notice a changed file). */
  actions: number[];
  keys: (string | undefined)[];
  /** Pass one's reading of each row, when `keepRows` asked for it. */
  kept?: ReadRow[];
}

/** A row as pass one read it. */
export interface ReadRow {
  rec: CsvRecord;
  values: Values;
  key?: string;
  leaver?: string;
  /**
   * Pass one's decision, when kept: pass two would decide the same against the same snapshot,
   * so it is not decided again (that was half of all the deciding in a dry run).
   */
  entry?: Entry;
}

/** Pass one: reads every row and decides; keeps little per row. */
export async function buildPlan(
  csv: CsvFile,
  layout: Layout,
  snapshot: Snapshot,
  opts: PlanOptions,
): Promise<Plan> {
  const { match } = opts;
  const { read, decide, check, nameOf } = classifier(csv, layout, snapshot, opts);
  const actions: number[] = [];
  const keys: (string | undefined)[] = [];
  const lines: number[] = [];
  const errors = new Map<number, Entry>();
  const preview: Entry[] = [];
  const leavers: Entry[] = [];
  const mailed: number[] = [];
  const fileKeys = new Set<string>();
  const firstSeen = Object.fromEntries(IDENTITY_FIELDS.map((f) => [f, new Map<string, number>()]));
  const duplicates = new Map<string, { field: string; value: string; at: number[] }>();
  const kept: ReadRow[] | undefined = opts.keepRows ? [] : undefined;

  for await (const rec of csv.records) {
    const at = actions.length;
    lines.push(rec.line);
    const { values, key, error, leaver } = read(rec);
    for (const field of IDENTITY_FIELDS) {
      const value = values[field] && identityKey(field, values[field]);
      if (!value) continue;
      const first = firstSeen[field]!.get(value);
      if (first === undefined) firstSeen[field]!.set(value, at);
      else {
        const id = `${field}\0${value}`;
        const dup = duplicates.get(id) ?? { field, value, at: [first] };
        dup.at.push(at);
        duplicates.set(id, dup);
      }
    }
    if (key) fileKeys.add(identityKey(match, key));
    keys.push(key);
    // A leaver's values are never sent: only its key has to be right.
    const problem = error ?? (leaver ? undefined : check(values));
    const entry: Entry = problem
      ? { row: rec.row, line: rec.line, key, action: 'error', error: problem }
      : decide(rec, values, key!, leaver);
    actions.push(CODES.indexOf(entry.action as RowAction));
    kept?.push({ rec, values, key, leaver, entry });
    if (entry.action === 'create' && sendsInvitation(values)) mailed.push(at);
    if (entry.action === 'error') errors.set(at, entry);
    else if (entry.leaver) {
      if (leavers.length < (opts.preview ?? 20)) leavers.push(entry);
    } else if (
      (entry.action === 'create' || entry.action === 'update') &&
      preview.length < (opts.preview ?? 20)
    ) {
      preview.push(entry);
    }
  }

  // Two rows for one user (or one email): no way to tell which is right, so neither is applied.
  for (const { field, value, at } of duplicates.values()) {
    const where = at.map((i) => lines[i]).join(', ');
    const error = `${nameOf(field)} '${safeText(value)}' appears on several lines (${where})`;
    for (const i of at) {
      const before = errors.get(i);
      actions[i] = ERROR;
      errors.set(i, {
        row: i + 1,
        line: lines[i]!,
        key: keys[i],
        action: 'error',
        error: before?.error ? `${error}; ${before.error}` : error,
      });
    }
  }

  const deactivate: KnownUser[] = [];
  if (opts.sync) {
    const seen = new Set<string>(); // a user met twice while paging is deactivated once
    for (const u of snapshot.users()) {
      if (u.status === 'deactivated' || seen.has(u.id)) continue;
      const value = valuesOf(u)[match];
      if (value && fileKeys.has(identityKey(match, value))) continue;
      seen.add(u.id);
      deactivate.push(u);
    }
  }
  const counts = Object.fromEntries(CODES.map((c) => [c, 0])) as Record<RowAction, number>;
  for (const code of actions) counts[CODES[code]!]++;
  return {
    file: csv.file,
    delimiter: csv.delimiter,
    match,
    rows: actions.length,
    counts,
    preview: preview.filter((e) => actions[e.row - 1] !== ERROR),
    statusColumns: layout.status.map((s) => s.name),
    leavers: leavers.filter((e) => actions[e.row - 1] !== ERROR),
    errors: [...errors.entries()].sort(([a], [b]) => a - b).map(([, e]) => e),
    deactivate,
    invitations: mailed.filter((i) => CODES[actions[i]!] === 'create').length,
    active: snapshot.active,
    actions,
    keys,
    ...(kept ? { kept } : {}),
  };
}

const STAYING = new Set(
  ['create', 'update', 'unchanged', 'skip'].map((c) => CODES.indexOf(c as RowAction)),
);

/**
 * The match keys (in their compared form) of the rows that name a user who is, or is to be, in
 * the branch: created, updated, unchanged, or done by the run a `--resume` continues. Leavers
 * and rows that fail the checks are left out. (What `--photos` gives avatars to.)
 */
export function stayingKeys(plan: Plan): Set<string> {
  const keys = new Set<string>();
  plan.actions.forEach((code, i) => {
    const key = plan.keys[i];
    if (key && STAYING.has(code)) keys.add(identityKey(plan.match, key));
  });
  return keys;
}

/**
 * Pass two: the same file again (or pass one's reading of it, when kept), each row as an entry
 * with what to send. Fails if the file no longer matches the plan (it changed in between).
 */
export async function* replayPlan(
  plan: Plan,
  csv: CsvFile,
  layout: Layout,
  snapshot: Snapshot,
  opts: PlanOptions,
): AsyncGenerator<Entry> {
  const { read, decide } = classifier(csv, layout, snapshot, opts);
  const errors = new Map(plan.errors.map((e) => [e.row, e]));
  async function* readAgain(): AsyncGenerator<ReadRow> {
    for await (const rec of csv.records) yield { rec, ...read(rec) };
  }
  let rows = 0;
  for await (const { rec, values, key, leaver, entry: kept } of plan.kept ?? readAgain()) {
    rows++;
    const code = plan.actions[rec.row - 1];
    if (code === undefined || plan.keys[rec.row - 1] !== key) {
      throw new ImportError(
        `${csv.file} changed while it was being imported (row ${rec.row}); run the import again`,
      );
    }
    const entry =
      code === ERROR ? errors.get(rec.row)! : (kept ?? decide(rec, values, key!, leaver));
    if (entry.action !== CODES[code]) {
      throw new ImportError(
        `${csv.file} changed while it was being imported (row ${rec.row}); run the import again`,
      );
    }
    yield entry;
  }
  if (rows !== plan.rows) {
    throw new ImportError(
      `${csv.file} changed while it was being imported (${rows} rows, planned ${plan.rows}); run the import again`,
    );
  }
}
