/**
 * A users list on PostgreSQL: the statement's parts built once from the filter (listQuery),
 * the way to read the page chosen (strategyOf), one function per way (STRATEGIES), and the
 * page's rows read by primary key last. The same answers as ../sqlite/users-list.ts.
 */
import {
  groupAsks,
  groupwise,
  KEY_COLUMNS,
  type Read as KeysetRead,
  keysetReads,
  type OrderTerm,
  orderTerms,
  positionOf,
  readTerms,
} from '../common/keyset.js';
import { cappedTotal, searchWords } from '../common/search.js';
import { sortColumns } from '../common/sort-columns.js';
import { type ListFilter, type UserPage, type UserView, VIEW_COLUMNS } from '../types.js';
import { type Pool, query } from './db.js';
import { NOCASE } from './schema-sql.js';

/** Names as stored columns ordered as SQLite orders them (see schema-sql.ts). */
const SORT_COLUMNS = sortColumns({ firstName: 'first_name_key', lastName: 'last_name_key' });
/** A position's name compared as the stored key is (it may hold the name or its key). */
const NAME_BIND = (p: string) => `${NOCASE(`${p}::text`)} COLLATE "C"`;
/**
 * The columns that give a row's position: for names the stored keys (in users_by_name, so an
 * index-only scan still gives them; SQLite compares a key as it compares the name).
 */
const POSITION_COLUMNS = (f: ListFilter) => [
  ...f.sort.map((s) =>
    s.key === 'firstName' || s.key === 'lastName' ? SORT_COLUMNS[s.key] : KEY_COLUMNS[s.key].column,
  ),
  'status',
  'rowid',
];

const VIEW = VIEW_COLUMNS.join(', ');

/**
 * An order's SQL. NULLS placement only where a key can be NULL: PostgreSQL matches an index's
 * order with it exactly, and a NOT NULL key's index in the default placement would not match
 * (createdAt's first page at 1M became a scan and top-N sort of every user: bench/README.md,
 * "A million users").
 */
const orderOf = (terms: OrderTerm[]) =>
  terms
    .map((t) =>
      t.nullable
        ? `${t.expr} ${t.dir} ${t.dir === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}`
        : `${t.expr} ${t.dir}`,
    )
    .join(', ');

type Counted = Pick<UserPage, 'total' | 'totalExact'>;
/** What a strategy reads: the total, the positions (one more than the page), maybe the rows. */
interface Read {
  counted: Counted;
  picked: unknown[][];
  rows?: UserView[];
}

/** A list's statement parts, from its filter and its search (a tsquery's text). */
interface ListQuery {
  f: ListFilter;
  pool: Pool;
  fewMatches: number;
  /** Set for a search: its words, and its statements planned with them (see planEachTime). */
  search?: string;
  /** A one-word search's word as the name keys hold it, where it can prove a count (namePrefixCount). */
  namePrefix?: string;
  values: unknown[];
  /** The statuses' condition, on $2. */
  statusIn: string;
  filter: string;
  terms: OrderTerm[];
  order: string;
  keys: string;
  want: number;
  planned: { planEachTime: boolean };
}

function listQuery(
  pool: Pool,
  f: ListFilter,
  fewMatches: number,
  search?: string,
  namePrefix?: string,
): ListQuery {
  // One status as an equality: PostgreSQL 15 checks it inside an ordered index scan (status is
  // in every order's index), where `= ANY(array)` on a later column is a filter on each heap
  // row, or the scan loses its order (query=M&status=pending at 1M: 7.2 → 1.1 ms warm;
  // bench/HISTORY.md). More than one stays an array (an IN list is the same array to it).
  const one = f.statuses.length === 1;
  const values: unknown[] = [f.branchId, one ? f.statuses[0] : f.statuses];
  const statusIn = one ? 'status = $2::text' : 'status = ANY($2::text[])';
  const where = ['branch_id = $1', statusIn];
  if (search) {
    values.push(search);
    where.push(`search @@ to_tsquery('simple', $3)`);
  }
  const terms = orderTerms(f, SORT_COLUMNS, { firstName: NAME_BIND, lastName: NAME_BIND });
  return {
    f,
    pool,
    fewMatches,
    search,
    ...(namePrefix === undefined ? {} : { namePrefix }),
    values,
    statusIn,
    filter: where.join(' AND '),
    terms,
    order: orderOf(terms),
    // Aliased: a sort by status names that column twice.
    keys: POSITION_COLUMNS(f)
      .map((c, i) => `${c} AS p${i}`)
      .join(', '),
    want: f.limit + 1,
    planned: { planEachTime: search !== undefined },
  };
}

/** A statement's rows as positions (arrays of values). */
const positions = async (q: ListQuery, text: string, bound: unknown[]) =>
  (await query<Record<string, unknown>>(q.pool, text, bound, q.planned)).rows.map(Object.values);

/** One status's count in a list (a search's: its matches, uncapped). */
const statusCount = async (q: ListQuery, status: ListFilter['statuses'][number]) =>
  (
    await count(
      listQuery(
        q.pool,
        { ...q.f, statuses: [status], countUpTo: undefined },
        q.fewMatches,
        q.search,
      ),
    )
  ).total;

/**
 * The page's positions, one more than asked to know whether more follow, read by read
 * (keyset.ts keysetReads): the ranges after a position, or the order from its start, by offset;
 * each from an index where one fits. A part of the list that the offset passes whole is skipped
 * by its count: a status's first (its kept count, or its matches), any other's once it gave no
 * row. Few matches are read from the full-text index and then sorted (`OFFSET 0` keeps the
 * planner from merging the two): not knowing how few, it walked the order's index past every
 * user for a word no one has (5.1 s at 1,000,000 users; bench/README.md, "A million users").
 * Many come soonest in the order's own index. A read that keyset.ts groupwise picks goes one
 * first-key group at a time (pickGroups).
 */
async function pick(q: ListQuery, few: boolean): Promise<unknown[][]> {
  const { f, keys, values } = q;
  const source = few ? `(SELECT * FROM users WHERE ${q.filter} OFFSET 0) AS users` : 'users';
  const rest = few ? 'true' : q.filter;
  const picked: unknown[][] = [];
  let offset = f.offset;
  for (const read of keysetReads(q.terms, f)) {
    if (offset > 0 && read.status !== undefined) {
      const n = await statusCount(q, read.status);
      if (n <= offset) {
        offset -= n;
        continue;
      }
    }
    if (groupwise(f, read)) {
      picked.push(...(await pickGroups(q, read, q.want - picked.length)));
      if (picked.length >= q.want) break;
      continue;
    }
    const bound = [...values];
    const conditions = read.range(binder(bound));
    const within = `FROM ${source} WHERE ${[rest, ...conditions].join(' AND ')}`;
    const n = bound.length;
    const got = await positions(
      q,
      `SELECT ${keys} ${within} ORDER BY ${orderOf(readTerms(q.terms, read))} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...bound, q.want - picked.length, offset],
    );
    if (got.length === 0 && offset > 0 && read.part) {
      const { rows } = await query<{ n: number }>(
        q.pool,
        `SELECT count(*)::int AS n ${within}`,
        bound,
        q.planned,
      );
      offset -= rows[0]!.n;
      continue;
    }
    picked.push(...got);
    offset = 0;
    if (picked.length >= q.want) break;
  }
  return picked;
}

/** Adds a value to `bound` as a parameter of its own, and names it. */
const binder = (bound: unknown[]) => (value: unknown) => {
  bound.push(value);
  return `$${bound.length}`;
};

/** A read one value of the first key at a time (keyset.ts groupwise, groupAsks). */
async function pickGroups(q: ListQuery, read: KeysetRead, limit: number): Promise<unknown[][]> {
  const lead = q.terms[0]!;
  const got: unknown[][] = [];
  const asks = groupAsks(lead, limit);
  let answer: unknown[][] = [];
  for (let ask = asks.next(); !ask.done; ask = asks.next(answer)) {
    const bound = [...q.values];
    const bind = binder(bound);
    const where = [q.filter, ...read.range(bind), ...ask.value.range(bind)].join(' AND ');
    if (ask.value.kind === 'first') {
      answer = await positions(
        q,
        `SELECT ${lead.expr} FROM users WHERE ${where} ORDER BY ${orderOf([lead])} LIMIT 1`,
        bound,
      );
    } else {
      bound.push(ask.value.limit);
      answer = await positions(
        q,
        `SELECT ${q.keys} FROM users WHERE ${where} ORDER BY ${q.order} LIMIT $${bound.length}`,
        bound,
      );
      got.push(...answer);
    }
  }
  return got;
}

/**
 * Without a query, the total is the counts the trigger keeps (migration 6), not a count; a
 * search's matches are counted, up to countUpTo (then one more, to know there are more) as the
 * caller allows.
 */
async function count(q: ListQuery): Promise<Counted> {
  const { f } = q;
  if (!q.search) {
    const { rows } = await query<{ total: number }>(
      q.pool,
      `SELECT coalesce(sum(n), 0) AS total FROM user_counts
       WHERE branch_id = $1 AND status = ANY($2::text[])`,
      [f.branchId, f.statuses],
    );
    return { total: rows[0]!.total };
  }
  const upTo = f.countUpTo;
  if (upTo !== undefined && (await namePrefixCount(q, upTo + 1)) > upTo) {
    return cappedTotal(upTo + 1, upTo);
  }
  const { rows } = await query<{ total: number }>(
    q.pool,
    upTo === undefined
      ? `SELECT count(*) AS total FROM users WHERE ${q.filter}`
      : `SELECT count(*) AS total FROM (SELECT 1 FROM users WHERE ${q.filter} LIMIT $4) AS m`,
    upTo === undefined ? q.values : [...q.values, upTo + 1],
    q.planned,
  );
  return cappedTotal(rows[0]!.total, upTo);
}

/**
 * Index entries each range of namePrefixCount reads at most, per match it needs: a scope of
 * every status finds them at once, `status=pending` (8 % of the users) among about twelve
 * times as many. Past that the count is left to the full-text index, having cost at most
 * this much more (two ranges of 80,000 entries read index-only: ~27 ms at 1M users).
 */
const PREFIX_ENTRIES_PER_MATCH = 8;

/**
 * A lower bound of a one-word search's matches, for a capped count that only needs to know
 * whether more than the bound match: the users in scope whose last name, or else first name,
 * starts with the word, counted in users_by_name and users_by_first_name alone (index-only),
 * up to `need`. The full-text index's count of `m:*` ANDs or scans most of the users (at 1M:
 * `M` 13 ms, `Mü` 39, `M&status=pending` 77; bench/HISTORY.md), where 10,001 keys in a
 * range are ~3 ms. Each user so counted matches: their key is the name with only A-Z
 * lowered (schema-sql.ts NOCASE), so the name begins with the word up to ASCII case, and
 * roster_search_text lowers, unaccents and breaks one character at a time, so the name's
 * search text begins with the word's, which (searchQuery's namePrefix) is one run of ASCII
 * letters and digits: the start of the name's first token, found by `word:*`. (A key of more
 * than 500 bytes is left out: PostgreSQL leaves out of a tsvector a token over 2 KB.)
 */
async function namePrefixCount(q: ListQuery, need: number): Promise<number> {
  if (q.namePrefix === undefined) return 0;
  const starts = (key: string) =>
    `${key} >= $3::text COLLATE "C" AND ${key} < ($3::text || chr(1114111)) COLLATE "C" AND octet_length(${key}) <= 500`;
  // Each range read in its index's order and cut at $5 entries before the statuses are
  // checked (their share decides how many hold a match); the Append reads the second only if
  // the first fell short.
  // A user in both ranges is counted in the first: the second leaves them out after its cut,
  // so that they do not pass uncounted through the first's cut and then make the second read
  // its whole range (a branch of 300,000 "Test Test": 58 -> 23 ms).
  const range = (key: string, also = 'true') =>
    `SELECT 1 FROM (SELECT status, last_name_key FROM users WHERE branch_id = $1 AND ${starts(key)}
                    ORDER BY ${key} NULLS FIRST LIMIT $5) AS r WHERE ${q.statusIn} AND ${also}`;
  const { rows } = await query<{ n: number }>(
    q.pool,
    `SELECT count(*)::int AS n FROM (
       (${range('last_name_key')})
       UNION ALL
       (${range('first_name_key', `NOT coalesce(${starts('r.last_name_key')}, false)`)})
       LIMIT $4) AS m`,
    [q.values[0], q.values[1], q.namePrefix, need, need * PREFIX_ENTRIES_PER_MATCH],
    q.planned,
  );
  return rows[0]!.n;
}

/**
 * How many match, as the planner expects: right for common words, whose frequencies its
 * statistics keep (at 1M users within 5 %), and a guess of ~0.4 % for any other, however rare
 * (a word no user has: 3,715).
 */
async function expected(q: ListQuery): Promise<number> {
  const { rows } = await query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
    q.pool,
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM users WHERE ${q.filter}`,
    q.values,
    q.planned,
  );
  return rows[0]!['QUERY PLAN'][0].Plan['Plan Rows'];
}

/**
 * A search's matches read once, up to one more than few: how many there are, and the page,
 * sorted, when that is all of them (a count and then the page scanned the full-text index twice).
 */
async function readFew(q: ListQuery) {
  const n = q.values.length;
  const { rows } = await query<Record<string, unknown> & { matches: number }>(
    q.pool,
    `SELECT ${q.keys}, count(*) OVER () AS matches
     FROM (SELECT * FROM users WHERE ${q.filter} LIMIT $${n + 1}) AS users
     ORDER BY ${q.order} LIMIT $${n + 2} OFFSET $${n + 3}`,
    [...q.values, q.fewMatches + 1, q.want, q.f.offset],
    q.planned,
  );
  // An offset past the last match leaves no row to say how many there were.
  const matches = rows[0]?.matches;
  const picked = rows.map(({ matches: _, ...position }) => Object.values(position));
  return { matches: matches === undefined ? undefined : Number(matches), picked };
}

/** The ways to read a page; a list's count and page go on two pool connections at once. */
const STRATEGIES = {
  /**
   * No query, by offset: the positions from the order's index, then those rows by primary key,
   * in one statement (ARRAY() makes the positions a value the outer scan looks up one by one;
   * joined as a subquery, the planner hashed every user).
   */
  async listPage(q: ListQuery): Promise<Read> {
    const n = q.values.length;
    const page = query<Record<string, unknown>>(
      q.pool,
      `SELECT ${q.keys}, ${VIEW} FROM users
       WHERE rowid = ANY(ARRAY(SELECT rowid FROM users WHERE ${q.filter}
                               ORDER BY ${q.order} LIMIT $${n + 1} OFFSET $${n + 2}))
       ORDER BY ${q.order}`,
      [...q.values, q.want, q.f.offset],
    );
    const [counted, { rows }] = await Promise.all([count(q), page]);
    const width = POSITION_COLUMNS(q.f).length;
    return {
      counted,
      picked: rows.map((r) => Object.values(r).slice(0, width)),
      rows: rows.slice(0, q.f.limit).map((r) => {
        const view: Record<string, unknown> = {};
        for (const c of VIEW_COLUMNS) view[c] = r[c];
        return view as unknown as UserView;
      }),
    };
  },
  /** No query after a cursor, or words the planner knows to be common: the order's index. */
  async inOrder(q: ListQuery): Promise<Read> {
    const [counted, picked] = await Promise.all([count(q), pick(q, false)]);
    return { counted, picked };
  },
  /** Any other search's first page by offset: how many match says how to read its page. */
  async searchFirst(q: ListQuery): Promise<Read> {
    const few = await readFew(q);
    if (few.matches !== undefined && few.matches <= q.fewMatches) {
      return { counted: cappedTotal(few.matches, q.f.countUpTo), picked: few.picked };
    }
    // More than few, or past the last: the bound, when it is no higher, needs no count.
    const upTo = q.f.countUpTo;
    const counted =
      few.matches !== undefined && upTo !== undefined && upTo <= q.fewMatches
        ? cappedTotal(few.matches, upTo)
        : await count(q);
    const many = counted.totalExact === false || counted.total > q.fewMatches;
    return { counted, picked: many ? await pick(q, false) : [] };
  },
  /** Any other search after a cursor: counted first, then few sorted or many in order. */
  async searchAfter(q: ListQuery): Promise<Read> {
    const counted = await count(q);
    const few = counted.totalExact !== false && counted.total <= q.fewMatches;
    return { counted, picked: await pick(q, few) };
  },
};

/**
 * Whether a list is read in parts (keyset.ts keysetReads) or a group at a time (groupwise),
 * not as one statement.
 */
const readsInParts = (q: ListQuery) =>
  keysetReads(q.terms, q.f).some((r) => r.part || groupwise(q.f, r));

/**
 * Which way to read: without a query the order's index (by offset with the rows at once); a
 * search of words the planner knows to be common in the order's index, with its count beside
 * it; any other first learns how many match.
 */
async function strategyOf(q: ListQuery): Promise<keyof typeof STRATEGIES> {
  // A status-led list is read a status at a time (keyset.ts statusParts), one led by email
  // its users without one apart (nullParted), and a name led by the other one way the other
  // group by group (groupwise): in one statement, none had an index in its order.
  if (!q.search) return q.f.after || readsInParts(q) ? 'inOrder' : 'listPage';
  if ((await expected(q)) > q.fewMatches) return 'inOrder';
  return q.f.after ? 'searchAfter' : 'searchFirst';
}

/**
 * A query's words as a tsquery's text: each a required prefix, normalised as the stored vector
 * is; a word that normalises to nothing (a lone combining mark) is dropped rather than matching
 * all, and '' when none is left. A statement of its own, so that the page and the count get the
 * words as a value their plans can see (see planEachTime). With it, for one word whose search
 * text is one run of ASCII letters and digits (`Mü` and `Søren`, not `a½`: unaccent spells ½
 * ` 1/2`), and the same with its a-z upper-cased (not in a database whose locale lowers I to ı:
 * there `iv` does not find Ivanov, whose key is `ivanov`), the word as the name keys hold it
 * (namePrefixCount).
 */
async function searchQuery(pool: Pool, words: string[]) {
  const { rows } = await query<{ q: string; prefix: string | null }>(
    pool,
    `SELECT coalesce(string_agg(regexp_replace(t, ' ', '', 'g') || ':*', ' & '), '') AS q,
       CASE WHEN count(*) = 1 AND bool_and(t ~ '^[a-z0-9]+$' AND t = u) THEN min(k) END AS prefix
     FROM (SELECT roster_search_text(word) AS t, ${NOCASE('word')} AS k,
             roster_search_text(translate(word, 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')) AS u
           FROM unnest($1::text[]) AS word) AS words
     WHERE regexp_replace(t, ' ', '', 'g') <> ''`,
    [words],
  );
  return { search: rows[0]!.q, namePrefix: rows[0]!.prefix ?? undefined };
}

export async function listUsers(pool: Pool, f: ListFilter, fewMatches: number): Promise<UserPage> {
  const words = f.query === undefined ? undefined : searchWords(f.query);
  if (words?.length === 0) return { total: 0, rows: [] };
  const asked = words && (await searchQuery(pool, words));
  if (asked?.search === '') return { total: 0, rows: [] };
  const q = listQuery(pool, f, fewMatches, asked?.search, asked?.namePrefix);
  const { counted, picked, rows: given } = await STRATEGIES[await strategyOf(q)](q);
  const page = picked.slice(0, f.limit);
  // Where the page's rows were not read with it, only those rows, by primary key and kept in
  // the page's order.
  const rows =
    given ??
    (page.length === 0
      ? []
      : (
          await query<UserView>(
            pool,
            `SELECT ${VIEW} FROM unnest($1::bigint[]) WITH ORDINALITY AS page(page_rowid, n)
             JOIN users ON users.rowid = page.page_rowid
             ORDER BY page.n`,
            [page.map((p) => p.at(-1))],
          )
        ).rows);
  // A page of none (limit 0: the count alone) has no position to go on from.
  return picked.length > f.limit && page.length > 0
    ? { ...counted, rows, next: positionOf(page.at(-1)!) }
    : { ...counted, rows };
}
