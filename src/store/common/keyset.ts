/**
 * Keyset paging for both backends: the rows after a position in a list's order, as a sequence
 * of disjoint ranges each an index can seek to, asked in order until the page is full.
 *
 * One OR-chain (`a > x OR (a = x AND b > y) …`) says the same, but neither SQLite nor PostgreSQL
 * seeks an index with it: both walk the order from its start and filter, which is offset paging
 * again. Nullable keys and mixed directions rule out row-value comparisons too. Each range here
 * is equalities on the leading keys and one bound (or IS [NOT] NULL) on the next: a seek.
 */
import type { SortKey } from '../../contract/user.js';
import type { ListFilter, ListPosition } from '../types.js';

/** One key of an order: its SQL, direction, and whether it can be NULL. */
export interface OrderTerm {
  expr: string;
  dir: 'ASC' | 'DESC';
  nullable: boolean;
  /** The SQL that compares with `expr`, given a bound value's placeholder (default: itself). */
  bind?: (placeholder: string) => string;
}

/** The stored column of each sort key whose value a position keeps; NULL-able or not. */
export const KEY_COLUMNS: Record<SortKey, { column: string; nullable: boolean }> = {
  firstName: { column: 'first_name', nullable: true },
  lastName: { column: 'last_name', nullable: true },
  createdAt: { column: 'created_at', nullable: false },
  email: { column: 'email_norm', nullable: true },
  externalId: { column: 'external_id', nullable: true },
  status: { column: 'status', nullable: false },
};

/** A list's whole order: its sort keys, then status and rowid, so every row has one place. */
export function orderTerms(
  f: Pick<ListFilter, 'sort'>,
  exprs: Record<SortKey, string>,
  bind: Partial<Record<SortKey, (placeholder: string) => string>> = {},
): OrderTerm[] {
  return [
    ...f.sort.map((s) => ({
      expr: exprs[s.key],
      dir: s.dir,
      nullable: KEY_COLUMNS[s.key].nullable,
      bind: bind[s.key],
    })),
    { expr: 'status', dir: 'ASC', nullable: false },
    { expr: 'rowid', dir: 'ASC', nullable: false },
  ];
}

/** The columns a page reads to give its last row's position: the keys', status, rowid. */
export const positionColumns = (f: Pick<ListFilter, 'sort'>): string[] => [
  ...f.sort.map((s) => KEY_COLUMNS[s.key].column),
  'status',
  'rowid',
];

/** A position from a row read with positionColumns (as an array of values). */
export function positionOf(values: unknown[]): ListPosition {
  const n = values.length;
  return {
    keys: values.slice(0, n - 2).map((v) => (v === null ? null : String(v))),
    status: String(values[n - 2]),
    rowid: Number(values[n - 1]),
  };
}

type Value = string | number | null;

/** One range of rows after a position, as SQL conditions; `bind(value)` adds a parameter. */
export type Range = (bind: (value: Value) => string) => string[];

/** One range after a position, and whether each of its rows has a NULL first key. */
export interface After {
  range: Range;
  leadIsNull: boolean;
  /** The first key is held equal to the position's (the rows tied with it on that key). */
  leadHeld?: true;
}

type Bind = (value: Value) => string;

/** `t` against a bound value, compared as its index compares it. */
const compareTo = (b: Bind, t: OrderTerm, op: string, v: Value) =>
  `${t.expr} ${op} ${(t.bind ?? ((p: string) => p))(b(v))}`;

/** `t` held to one value (NULL included). */
const equalTo = (b: Bind, t: OrderTerm, v: Value) =>
  v === null ? `${t.expr} IS NULL` : compareTo(b, t, '=', v);

/** A range strictly beyond one value of a key, and whether its rows have that key NULL. */
type Beyond = { sql: (b: Bind) => string; isNull?: true };

/**
 * Strictly after v on `t` alone, as ranges in order, each one bound: NULLs come first going
 * up, last going down (both backends sort them so; see schema.ts), so "after" may be two
 * ranges or none. Never an OR of a bound and IS NULL: neither backend seeks an index with it.
 */
function beyond(t: OrderTerm, v: Value): Beyond[] {
  if (t.dir === 'ASC') {
    return [{ sql: v === null ? () => `${t.expr} IS NOT NULL` : (b) => compareTo(b, t, '>', v) }];
  }
  if (v === null) return [];
  const below = { sql: (b: Bind) => compareTo(b, t, '<', v) };
  return t.nullable ? [below, { sql: () => `${t.expr} IS NULL`, isNull: true }] : [below];
}

/** The ranges after `at`, in the order's order (each rendered with its own parameters). */
export function keysetRanges(terms: OrderTerm[], at: ListPosition): After[] {
  const values: Value[] = [...at.keys, at.status, at.rowid];
  const ranges: After[] = [];
  // Deepest first: the rows tied with `at` on every key but the last come right after it.
  for (let j = terms.length - 1; j >= 0; j--) {
    // A key that an earlier one repeats (status leading, then as the tie-break) is held equal
    // there, so nothing is after it: `status = $3 AND status > $5` is empty, but a generic
    // plan, which PostgreSQL takes after five runs of a statement, cannot see that and read a
    // first name's every user for it (status_DESC_firstName_ASC's deep page at 1M, ~1 s).
    if (terms.slice(0, j).some((t) => t.expr === terms[j]!.expr)) continue;
    for (const bound of beyond(terms[j]!, values[j]!)) {
      ranges.push({
        range: (b) => [...terms.slice(0, j).map((t, i) => equalTo(b, t, values[i]!)), bound.sql(b)],
        leadIsNull: j > 0 ? values[0] === null : bound.isNull === true,
        ...(j > 0 ? { leadHeld: true as const } : {}),
      });
    }
  }
  return ranges;
}

/**
 * A list led by status read one status at a time: its listed statuses in the order's direction
 * (status compares bytewise on both backends: COLLATE "C" on PostgreSQL), after the position's
 * when there is one. Each part has one status, so the next sort key's own index gives its
 * order (status is in every such index, so the filter is read from the index too); the whole
 * list at once was a sort of the branch (2.1 s at 1,000,000 users: bench/HISTORY.md,
 * "Every sort's first page"). Undefined when status does not lead.
 */
export function statusParts(
  f: Pick<ListFilter, 'sort' | 'statuses' | 'after'>,
): ListFilter['statuses'] | undefined {
  const lead = f.sort[0]!;
  if (lead.key !== 'status') return undefined;
  const ordered = [...new Set(f.statuses)].sort();
  if (lead.dir === 'DESC') ordered.reverse();
  const at = f.after?.keys[0];
  if (at === undefined || at === null) return ordered;
  return ordered.filter((s) => (lead.dir === 'ASC' ? s > at : s < at));
}

/**
 * The leading keys whose users without a value are read as a part of their own, and the next
 * keys for which they are: those with an index of only those users in their order (SQLite 18,
 * PostgreSQL 12). About 30,000 of 1,000,000 users have no email, and in one index with the rest
 * they tie, so every page among them sorted them all by the next key (64-131 ms on SQLite,
 * 0.1-1.6 s on PostgreSQL: bench/HISTORY.md, "Sorts led by status or email"). By status or
 * email next, users_by_email itself has them in order: (status, rowid).
 */
const NULL_PARTS: Partial<Record<SortKey, readonly SortKey[]>> = {
  email: ['lastName', 'firstName', 'createdAt', 'externalId'],
};

/** Whether a list's users without its first key are read apart (NULL_PARTS). */
export const nullParted = (f: Pick<ListFilter, 'sort'>): boolean => {
  const next = f.sort[1]?.key;
  return next !== undefined && (NULL_PARTS[f.sort[0]!.key]?.includes(next) ?? false);
};

/** The key whose index orders a list: the first, or the next when status leads (statusParts). */
export const orderingKey = (f: Pick<ListFilter, 'sort'>): SortKey =>
  f.sort[0]!.key === 'status' ? (f.sort[1]?.key ?? 'status') : f.sort[0]!.key;

/** One read of a page: its range, and what part of the list it is. */
export interface Read {
  range: Range;
  /** A part of a status-led list, of this status (statusParts). */
  status?: ListFilter['statuses'][number];
  /** Only the users without the first key, in a list that reads them apart (nullParted). */
  leadIsNull?: boolean;
  /** A whole part of the list, which an offset may pass: by its count. */
  part?: true;
  /** Its first key is held to one value (keysetRanges): already one group (groupwise). */
  leadHeld?: true;
}

/**
 * A read's order: a read of rows with a NULL first key leaves that key out, as it is the same
 * for all of them; PostgreSQL's planner does not know that from `IS NULL`, and kept it before
 * the next key, so no index of those rows could give the order.
 */
export const readTerms = (terms: OrderTerm[], read: Read): OrderTerm[] =>
  read.leadIsNull ? terms.slice(1) : terms;

/**
 * The reads that give a page, in order, until it is full: the ranges after the position, or
 * the whole order from its start; in a status-led list, the range beyond the position's status
 * (the last: the only one spanning statuses), or the whole list, as one part per status; in a
 * list that reads its users without the first key apart (nullParted), from its start, those
 * and the others, in the order's NULL placement (first going up).
 */
export function keysetReads(
  terms: OrderTerm[],
  f: Pick<ListFilter, 'sort' | 'statuses' | 'after'>,
): Read[] {
  const parts = statusParts(f)?.map(
    (status): Read => ({
      range: (b: (v: Value) => string) => [`status = ${b(status)}`],
      status,
      part: true,
    }),
  );
  const parted = nullParted(f);
  if (f.after) {
    const ranges = keysetRanges(terms, f.after).map(
      ({ range, leadIsNull, leadHeld }): Read => ({
        range,
        ...(parted && leadIsNull ? { leadIsNull } : {}),
        ...(leadHeld ? { leadHeld } : {}),
      }),
    );
    return parts ? [...ranges.slice(0, -1), ...parts] : ranges;
  }
  if (parts) return parts;
  const lead = terms[0]!;
  if (!parted) return [{ range: () => [] }];
  const without: Read = { range: () => [`${lead.expr} IS NULL`], leadIsNull: true, part: true };
  const rest: Read = { range: () => [`${lead.expr} IS NOT NULL`], part: true };
  return lead.dir === 'ASC' ? [without, rest] : [rest, without];
}

/**
 * Whether a read is worth reading one value of its first key at a time: the next key runs the
 * other way (`firstName_DESC_lastName_ASC`), the two are the pair of names, each the other's
 * next column in its index (users_by_name, users_by_first_name), and the read spans several
 * values of the first. In one read, both backends sort the whole first group by the next key
 * before the page's first row (a first name's ~15,000 users at 1,000,000: 9 ms on SQLite, 14 ms
 * on PostgreSQL, alone; twice that at two in flight). With that key held equal, the index gives
 * the order as it is. Not for a search (its matches are filtered or sorted apart: the strategies
 * of each users-list.ts), nor for a page by offset (the offset counts rows across groups).
 */
export function groupwise(f: Pick<ListFilter, 'sort' | 'offset' | 'query'>, read: Read): boolean {
  const [lead, next] = f.sort;
  if (!lead || !next || f.offset > 0 || f.query !== undefined) return false;
  if (read.leadIsNull || read.leadHeld || read.status !== undefined) return false;
  const names: readonly SortKey[] = ['firstName', 'lastName'];
  return (
    lead.dir !== next.dir &&
    lead.key !== next.key &&
    names.includes(lead.key) &&
    names.includes(next.key)
  );
}

/** How many statements that find a group's value a read runs before it reads the rest as one. */
export const GROUP_STEPS = 3;

/**
 * One statement of a groupwise read, as conditions added to the read's own: the first key's
 * value in the first row of `range` in the read's order (`first`: one row of one value, or
 * none), or the rows of `range` in that order, at most `limit` (`rows`).
 */
export type GroupAsk =
  | { kind: 'first'; range: Range }
  | { kind: 'rows'; range: Range; limit: number };

/**
 * A groupwise read (above) as the statements a backend runs in turn, each answered with its
 * rows (arrays of values), so one rule serves a synchronous driver and an asynchronous one:
 * the next group's value, then that group with its first key held equal (the index's own
 * order), GROUP_STEPS times, then whatever is beyond as one read, up to `limit` rows.
 */
export function* groupAsks(lead: OrderTerm, limit: number): Generator<GroupAsk, void, unknown[][]> {
  const and =
    (x: Range, y: (b: Bind) => string): Range =>
    (b) => [...x(b), y(b)];
  const whole: Range = () => [];
  let got = 0;
  // The ranges still to read, in order. Beyond a group inside one already bounded by an
  // earlier group, only the next bound: the NULLs of the key lie beyond the first group only
  // (their range was queued then), not beyond every group again.
  const pending: Range[] = [whole];
  for (let step = 0; pending.length > 0 && got < limit; step++) {
    const range = pending.shift()!;
    if (step >= GROUP_STEPS) {
      got += (yield { kind: 'rows', range, limit: limit - got }).length;
      continue;
    }
    const first = yield { kind: 'first', range };
    if (first.length === 0) continue;
    const value = first[0]![0] as Value;
    const held = and(range, (b) => equalTo(b, lead, value));
    got += (yield { kind: 'rows', range: held, limit: limit - got }).length;
    const next = beyond(lead, value).filter((r) => range === whole || !r.isNull);
    pending.unshift(...next.map((r) => and(range, r.sql)));
  }
}
