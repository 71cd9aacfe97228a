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

/** The ranges after `at`, in the order's order (each rendered with its own parameters). */
export function keysetRanges(terms: OrderTerm[], at: ListPosition): Range[] {
  const values: Value[] = [...at.keys, at.status, at.rowid];
  type Bind = (value: Value) => string;
  const compare = (b: Bind, t: OrderTerm, op: string, v: Value) =>
    `${t.expr} ${op} ${(t.bind ?? ((p: string) => p))(b(v))}`;
  const equal = (b: Bind, t: OrderTerm, v: Value) =>
    v === null ? `${t.expr} IS NULL` : compare(b, t, '=', v);
  // Strictly after v on this key alone: NULLs come first going up, last going down (both
  // backends sort them so; see schema.ts), so "after" may be two ranges or none.
  const after = (t: OrderTerm, v: Value): ((b: Bind) => string)[] => {
    if (t.dir === 'ASC') {
      return [v === null ? () => `${t.expr} IS NOT NULL` : (b) => compare(b, t, '>', v)];
    }
    if (v === null) return [];
    const below = (b: Bind) => compare(b, t, '<', v);
    return t.nullable ? [below, () => `${t.expr} IS NULL`] : [below];
  };
  const ranges: Range[] = [];
  // Deepest first: the rows tied with `at` on every key but the last come right after it.
  for (let j = terms.length - 1; j >= 0; j--) {
    for (const bound of after(terms[j]!, values[j]!)) {
      ranges.push((b) => [...terms.slice(0, j).map((t, i) => equal(b, t, values[i]!)), bound(b)]);
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

/** The key whose index orders a list: the first, or the next when status leads (statusParts). */
export const orderingKey = (f: Pick<ListFilter, 'sort'>): SortKey =>
  f.sort[0]!.key === 'status' ? (f.sort[1]?.key ?? 'status') : f.sort[0]!.key;

/** One read of a page: its range, and for a part of a status-led list, the part's status. */
export interface Read {
  range: Range;
  status?: ListFilter['statuses'][number];
}

/**
 * The reads that give a page, in order, until it is full: the ranges after the position, or
 * the whole order from its start; in a status-led list, the range beyond the position's status
 * (the last: the only one spanning statuses), or the whole list, as one part per status.
 */
export function keysetReads(
  terms: OrderTerm[],
  f: Pick<ListFilter, 'sort' | 'statuses' | 'after'>,
): Read[] {
  const ranges: Read[] = f.after
    ? keysetRanges(terms, f.after).map((range) => ({ range }))
    : [{ range: () => [] }];
  const parts = statusParts(f);
  if (!parts) return ranges;
  return [
    ...ranges.slice(0, -1),
    ...parts.map((status) => ({
      range: (b: (v: Value) => string) => [`status = ${b(status)}`],
      status,
    })),
  ];
}
