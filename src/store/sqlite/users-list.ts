/**
 * A users list on SQLite: the statement's parts built once from the filter (listQuery), the way
 * to read the page chosen (plan), one function per way (STRATEGIES), and the page's rows
 * read by rowid last. The same answers as ../postgres/users-list.ts.
 */
import type { SortKey } from '../../contract/user.js';
import {
  groupAsks,
  groupwise,
  KEY_COLUMNS,
  keysetReads,
  type OrderTerm,
  orderingKey,
  orderTerms,
  positionColumns,
  positionOf,
  type Read,
  readTerms,
} from '../common/keyset.js';
import { cappedTotal, searchWords, spellOut } from '../common/search.js';
import { sortColumns } from '../common/sort-columns.js';
import { type ListFilter, type UserPage, VIEW_COLUMNS, viewOf } from '../types.js';
import type { Db } from './db.js';
import { entryProbes } from './fts-words.js';

const SORT_COLUMNS = sortColumns({
  firstName: 'first_name COLLATE NOCASE',
  lastName: 'last_name COLLATE NOCASE',
});

/**
 * The index that gives each leading sort key's order (migrations 3 and 8). Named, because
 * SQLite's planner without statistics takes `branch_id = ?` for a handful of rows, so every
 * index on branch_id looks alike to it: with users_by_first_name added it read the default
 * order's first page from that one and sorted the whole branch (at 1M users: bench/README.md,
 * "Figures from src/ comments").
 */
const SORT_INDEX: Record<SortKey, string> = {
  lastName: 'users_by_name',
  firstName: 'users_by_first_name',
  createdAt: 'users_by_created',
  email: 'users_by_email',
  externalId: 'users_by_external_id',
  status: 'users_by_status',
};

/**
 * The index that orders the users with no email by the next key (a read with leadIsNull in a
 * list led by email: keyset.ts nullParted; SQLite 18).
 */
const WITHOUT_EMAIL_INDEX: Partial<Record<SortKey, string>> = {
  lastName: 'users_without_email_by_name',
  firstName: 'users_without_email_by_first_name',
  createdAt: 'users_without_email_by_created',
  externalId: 'users_without_email_by_external_id',
};

/**
 * A free-text query as an FTS5 expression: every word a quoted prefix term, all required.
 * Quoting makes FTS syntax in user input (`AND`, `*`, `"`, `NEAR(`) plain text. Spelled out as
 * the entries are (migration 16).
 */
export function ftsExpression(query: string): string | null {
  const words = searchWords(spellOut(query));
  return words.length === 0 ? null : ftsTerms(words);
}

/** A query's words (searchWords) as FTS5 prefix terms. */
const ftsTerms = (words: string[]) => words.map((w) => `"${w}"*`).join(' ');

/** The same, qualified: beside json_each, whose columns include an \`id\`. */
const USERS_VIEW = VIEW_COLUMNS.map((c) => `users.${c}`).join(', ');

/** A user's branch and status as one token of its full-text entry (see migration 6). */
const scopeToken = (branchId: number, status: string) => `b${branchId}${status}`;

/** Statements prepared once per text, as arrays of values (see viewOf). */
export type Prepared = (sql: string) => ReturnType<Db['prepare']>;

type Counted = Pick<UserPage, 'total' | 'totalExact'>;
/** One status's count in a list (keyset.ts statusParts). */
type CountOf = (status: ListFilter['statuses'][number]) => number;
/** The table a read reads, and the index it names. */
type From = (read: Read) => string;

/** A list's statement parts, from its filter. */
interface ListQuery {
  f: ListFilter;
  /** A search's FTS5 match: the words in the user's fields, the branch and status in scope. */
  match?: string;
  /** The words alone, in the user's fields: for a read that checks branch and status itself. */
  words?: string;
  /** The words as substrings of `users.words` (fts-words.ts entryProbes), for wordsWalk. */
  probes?: string[];
  /** A one-word search's word as typed, where it is one token (namePrefixCount). */
  namePrefix?: string;
  /** The branch and status conditions on `users` (in `where` too). */
  inScope: string;
  where: string;
  params: Record<string, unknown>;
  terms: OrderTerm[];
  keys: string;
  want: number;
}

function listQuery(f: ListFilter, words: string | undefined, probes?: string[]): ListQuery {
  const typed = f.query === undefined ? [] : searchWords(f.query);
  // The words in the user's fields, and the branch and status in the entry's scope token
  // (migration 6): FTS5 alone answers which users of the branch match.
  const fields = words && `- {scope} : (${words})`;
  const match =
    fields &&
    `(${fields}) AND scope : (${f.statuses.map((s) => `"${scopeToken(f.branchId, s)}"`).join(' OR ')})`;
  const params: Record<string, unknown> = { branchId: f.branchId };
  if (match) params.match = match;
  f.statuses.forEach((s, i) => {
    params[`s${i}`] = s;
  });
  // status before rowid: a harmless tie-break that lets users_by_name order a page alone.
  const terms = orderTerms(f, SORT_COLUMNS);
  const inScope = `users.branch_id = @branchId AND users.status IN (${f.statuses.map((_, i) => `@s${i}`).join(', ')})`;
  return {
    f,
    match,
    words: fields,
    probes,
    ...(probes?.length === 1 && typed.length === 1 ? { namePrefix: typed[0] } : {}),
    inScope,
    where: [
      inScope,
      ...(match ? ['rowid IN (SELECT rowid FROM users_fts WHERE users_fts MATCH @match)'] : []),
    ].join(' AND '),
    params,
    terms,
    keys: positionColumns(f).join(', '),
    // One more than asked, to know whether more follow.
    want: f.limit + 1,
  };
}

/**
 * The page's positions (index-only where an index fits), read by read (keyset.ts keysetReads):
 * the ranges after a position, or the order from its start, by offset. A part of the list that
 * the offset passes whole is skipped by its count: a status's first (`countOf`), any other's
 * once it gave no row. A read that keyset.ts groupwise picks goes one first-key group at a
 * time (pickGroups).
 */
function pick(prepared: Prepared, q: ListQuery, from: From, countOf: CountOf): unknown[][] {
  const { f, keys, where, params } = q;
  const picked: unknown[][] = [];
  let offset = f.offset;
  for (const read of keysetReads(q.terms, f)) {
    if (offset > 0 && read.status !== undefined) {
      const n = countOf(read.status);
      if (n <= offset) {
        offset -= n;
        continue;
      }
    }
    if (groupwise(f, read)) {
      picked.push(...pickGroups(prepared, q, from(read), read, q.want - picked.length));
      if (picked.length >= q.want) break;
      continue;
    }
    const bound: Record<string, unknown> = { ...params };
    const conditions = read.range(binder(bound));
    const within = `FROM ${from(read)} WHERE ${[where, ...conditions].join(' AND ')}`;
    const order = readTerms(q.terms, read)
      .map((t) => `${t.expr} ${t.dir}`)
      .join(', ');
    const got = prepared(
      `SELECT ${keys} ${within} ORDER BY ${order} LIMIT @limit OFFSET @offset`,
    ).all({ ...bound, limit: q.want - picked.length, offset }) as unknown[][];
    if (got.length === 0 && offset > 0 && read.part) {
      offset -= prepared(`SELECT count(*) ${within}`).pluck().get(bound) as number;
      continue;
    }
    picked.push(...got);
    offset = 0;
    if (picked.length >= q.want) break;
  }
  return picked;
}

/** Adds a value to `bound` as a parameter of its own, and names it. */
const binder = (bound: Record<string, unknown>) => (value: unknown) => {
  const name = `k${Object.keys(bound).length}`;
  bound[name] = value;
  return `@${name}`;
};

/** A read one value of the first key at a time (keyset.ts groupwise, groupAsks). */
function pickGroups(
  prepared: Prepared,
  q: ListQuery,
  from: string,
  read: Read,
  limit: number,
): unknown[][] {
  const lead = q.terms[0]!;
  const leadColumn = KEY_COLUMNS[q.f.sort[0]!.key].column;
  const order = q.terms.map((t) => `${t.expr} ${t.dir}`).join(', ');
  const got: unknown[][] = [];
  const asks = groupAsks(lead, limit);
  let answer: unknown[][] = [];
  for (let ask = asks.next(); !ask.done; ask = asks.next(answer)) {
    const bound: Record<string, unknown> = { ...q.params };
    const bind = binder(bound);
    const where = [q.where, ...read.range(bind), ...ask.value.range(bind)].join(' AND ');
    if (ask.value.kind === 'first') {
      answer = prepared(
        `SELECT ${leadColumn} FROM ${from} WHERE ${where} ORDER BY ${lead.expr} ${lead.dir} LIMIT 1`,
      ).all(bound) as unknown[][];
    } else {
      answer = prepared(
        `SELECT ${q.keys} FROM ${from} WHERE ${where} ORDER BY ${order} LIMIT @limit`,
      ).all({ ...bound, limit: ask.value.limit }) as unknown[][];
      got.push(...answer);
    }
  }
  return got;
}

/**
 * A search's page walking the order's index and checking each row's words (migration 20), for
 * a search with many matches: its first matches in the order come early (query=M: 95 rows at
 * 1M users, 0.3 ms), where finding every match first and walking against that set built a set
 * of 413,691 (50 ms). A search whose matches the order holds late (Schm by last name: 15,812
 * rows to the 26th) would walk long, so each read stops after `budget` rows in scope, and a
 * read that ran out of them gives up the walk (undefined: the plan's own way reads the page).
 * The first read tries a quarter of both first: matches held late give up there, at a quarter
 * of the cost (Schm&status=pending's page of 100: 15 ms walked for nothing), and are walked
 * again by the whole read. Offsets are the plan's. A row without its words (written by
 * something other than the repo) is asked of the full-text index.
 */
function wordsWalk(prepared: Prepared, q: ListQuery, budget: number): unknown[][] | undefined {
  const { f, probes } = q;
  if (!probes?.length || f.offset > 0) return undefined;
  // (A search never reads a group at a time: keyset.ts groupwise.)
  const reads = keysetReads(q.terms, f);
  // Up to `limit` matches of `read` among its first `rows` rows, and whether it has more rows.
  const walk = (read: Read, rows: number, limit: number) => {
    const bound: Record<string, unknown> = { ...q.params, rows };
    const bind = binder(bound);
    const within = `FROM users INDEXED BY ${indexOf(f, read)} WHERE ${[q.inScope, ...read.range(bind)].join(' AND ')}`;
    const hit = `CASE WHEN words IS NULL
      THEN EXISTS (SELECT 1 FROM users_fts WHERE users_fts MATCH ${bind(q.words)} AND users_fts.rowid = users.rowid)
      ELSE ${probes.map((p) => `instr(words, ${bind(p)}) > 0`).join(' AND ')} END`;
    const order = readTerms(q.terms, read)
      .map((t) => `${t.expr} ${t.dir}`)
      .join(', ');
    // The subquery, limited, is a co-routine yielding rows in its order as the outer query
    // asks (both have a LIMIT, so SQLite does not flatten them); its last column says whether
    // the row matches. An ORDER BY outside would sort the whole budget before the first row,
    // and the walk would lose its early stop; the order is held by the search tests.
    const got = (
      prepared(
        `SELECT * FROM (SELECT ${q.keys}, ${hit} AS hit ${within} ORDER BY ${order} LIMIT @rows)
         WHERE hit LIMIT @limit`,
      ).all({ ...bound, limit }) as unknown[][]
    ).map((row) => row.slice(0, -1));
    // Short: the read ended, or its rows did.
    const more =
      got.length < limit &&
      (prepared(`SELECT count(*) FROM (SELECT 1 ${within} LIMIT @rows)`)
        .pluck()
        .get(bound) as number) >= rows;
    return { got, more };
  };
  const first = walk(reads[0]!, Math.ceil(budget / 4), Math.ceil(q.want / 4));
  if (first.more) return undefined;
  const picked: unknown[][] = [];
  for (const read of reads) {
    const { got, more } = walk(read, budget, q.want - picked.length);
    if (more) return undefined;
    picked.push(...got);
    if (picked.length >= q.want) break;
  }
  return picked;
}

/** The index a read names: its users without an email's when it reads only those. */
const indexOf = (f: ListFilter, read: Read) =>
  (read.leadIsNull && f.sort[0]!.key === 'email' && WITHOUT_EMAIL_INDEX[f.sort[1]!.key]) ||
  SORT_INDEX[orderingKey(f)];

/** The same list with a search's set of matches of its words alone (see wideScope). */
const byWords = (q: ListQuery): ListQuery => ({ ...q, params: { ...q.params, match: q.words } });

/**
 * The same list with its matches already found (plan's nearIds or matchIds): the full-text side
 * read once. No branch or status condition: those reads found only users in scope (checked on
 * the users side, or by the scope token).
 */
const byIds = (q: ListQuery, ids: number[]): ListQuery => ({
  ...q,
  where: 'rowid IN (SELECT value FROM json_each(@ids))',
  params: { ...q.params, ids: JSON.stringify(ids) },
});

/** The ways to read a page's positions. */
const STRATEGIES = {
  /**
   * In the order's index, named as SORT_INDEX says; for a search too, where the planner (no
   * statistics) walked another index whole and sorted every match.
   */
  inOrder: (prepared: Prepared, q: ListQuery, countOf: CountOf) =>
    pick(prepared, q, (read) => `users INDEXED BY ${indexOf(q.f, read)}`, countOf),
  /** A search's few matches, found first (byIds), each read by rowid, then sorted. */
  fewSorted: (prepared: Prepared, q: ListQuery, countOf: CountOf) =>
    pick(prepared, q, () => 'users NOT INDEXED', countOf),
  /** The first for a search in a wide scope: matches of the words alone (wideScope). */
  inOrderByWords: (prepared: Prepared, q: ListQuery, countOf: CountOf) =>
    STRATEGIES.inOrder(prepared, byWords(q), countOf),
};

/**
 * Whether a search's scope (its branch and statuses) holds at least half of the users in the
 * full-text index. Then its matches are best found from its words alone, each checked for
 * branch and status on the users side: ANDing the words with the scope's token reads a doclist
 * of most of the database to rule out few matches. At 1M users in one branch, every status but
 * one: query=M's page 83 -> 61 ms; a full name's count and page 9 + 10 -> 4 + 4 ms. A narrow
 * scope (status=pending, 8 %) is the other way round: its token's doclist is short and cuts the
 * set of matches to a tenth (query=M&status=pending 20 ms with it, 64 without). Figures:
 * bench/HISTORY.md, "SQLite search, the scope's token only where it narrows". The share is the
 * scope's, not a word's: a word whose matches are mostly outside a wide scope (50 activated,
 * 40,000 deactivated) is read as all its matches to keep 50; rare in a directory, and never a
 * wrong answer.
 */
const wideScope = (scoped: number, everyone: number) => scoped * 2 >= everyone;

/** The longest prefix the full-text index keeps a doclist of (`prefix = '1 2 3'`, migration 11). */
const PREFIX_INDEXED = 3;

/**
 * At most how many of a search's matches beyond the few are read as rowids to be counted (the
 * default count stops at 10,000: SEARCH_COUNT_UP_TO); past it, a count counts them. Reading
 * 10,001 rowids into JavaScript costs ~0.5 ms more than counting them in SQLite.
 */
const MATCHES_READ = 20_000;

/**
 * Rows in scope a wordsWalk read checks, per row it wants, before it gives up: the walk goes on
 * while at least 1 in 25 rows matches. A row costs 1.2-1.7 us at 1M users (read for its
 * words), so a walk that gives up on a page of 100 costs ~4 ms. Mü (7 % of the users) takes
 * 483 rows for 26, 1,900 for 101; Schm by last name 15,812 for 26 (its matches sit together
 * in that order), and gives up.
 */
const WALK_ROWS_PER_ROW = 25;

/**
 * A list on SQLite, with its statements prepared once per text. `walkBudget` fixes how many
 * rows a walk checks (tests); by default WALK_ROWS_PER_ROW per row wanted.
 */
export function usersList(db: Db, prepared: Prepared, fewMatches: number, walkBudget?: number) {
  // A list's total without a query: the counts the triggers keep (migration 10), not a count.
  const countListed = db
    .prepare<[number, string]>(
      `SELECT coalesce(sum(n), 0) FROM user_counts
       WHERE branch_id = ? AND status IN (SELECT value FROM json_each(?))`,
    )
    .pluck();
  // A search's scope against everyone in the full-text index (wideScope): a row per branch and
  // status, so a few rows to add.
  const scopeShare = db
    .prepare<[number, string], [number, number]>(
      `SELECT coalesce(sum(n) FILTER (WHERE branch_id = ? AND status IN (SELECT value FROM json_each(?))), 0),
       coalesce(sum(n), 0)
     FROM user_counts`,
    )
    .raw();
  // A search's: its matches counted from the full-text index, up to countUpTo (then one more,
  // to know there are more) as the caller allows.
  const countAll = db.prepare('SELECT count(*) FROM users_fts WHERE users_fts MATCH ?').pluck();
  // The first `upTo` matches' rowids (a match with its scope token: in scope).
  const firstMatches = db
    .prepare<[string, number]>('SELECT rowid FROM users_fts WHERE users_fts MATCH ? LIMIT ?')
    .pluck();
  const matchIds = (match: string, upTo: number) => firstMatches.all(match, upTo) as number[];
  const countSome = db
    .prepare('SELECT count(*) FROM (SELECT 1 FROM users_fts WHERE users_fts MATCH ? LIMIT ?)')
    .pluck();
  // A wide scope's matches of the words, each checked on the users side, up to `upTo`: the
  // first of them come soon, so a few more than the few read is cheap. Their rowids, so that
  // the page reads them without a second read of the full-text side.
  const nearIds = (q: ListQuery, upTo: number) =>
    prepared(
      `SELECT users.rowid FROM users_fts JOIN users ON users.rowid = users_fts.rowid
       WHERE users_fts MATCH @words AND ${q.inScope} LIMIT @upTo`,
    )
      .pluck()
      .all({ ...q.params, words: q.words, upTo }) as number[];
  /**
   * A lower bound of a one-word search's matches in a wide scope (plan): the users in scope
   * whose last name, or else first name, begins with the word, counted in users_by_name and
   * users_by_first_name alone, up to `need`. In a scope of activated users the full-text
   * index's capped count ANDs a doclist of most of the users (`M`: 3.8 ms at 1M, its words
   * alone not proving it with 150,000 users outside), where 10,001 names in a range are ~1 ms.
   * Each user so counted matches: NOCASE lowers only A-Z, so the name begins with the word up
   * to ASCII case, and the tokenizer splits and folds one character at a time, so the name's
   * first token begins with the word's one token (q.namePrefix is set only where the word is
   * one). Each range is cut at twice `need` entries: in a wide scope that finds them.
   */
  const namePrefixCount = (q: ListQuery, need: number): number => {
    const starts = (column: string) =>
      `(${column} COLLATE NOCASE) >= @prefix AND (${column} COLLATE NOCASE) < (@prefix || char(1114111))`;
    // A user in both ranges is counted in the first; the second leaves them out after its cut
    // (inside it, they would not count towards it: a name shared by many read whole).
    const range = (index: string, column: string, also = '1') =>
      `SELECT 1 FROM (SELECT status, last_name FROM users INDEXED BY ${index}
                      WHERE branch_id = @branchId AND ${starts(column)}
                      ORDER BY ${column} COLLATE NOCASE LIMIT @entries)
       WHERE status IN (${q.f.statuses.map((_, i) => `@s${i}`).join(', ')}) AND ${also}`;
    return prepared(
      `SELECT count(*) FROM (${range('users_by_name', 'last_name')}
         UNION ALL ${range('users_by_first_name', 'first_name', `NOT coalesce(${starts('last_name')}, 0)`)}
         LIMIT @need)`,
    )
      .pluck()
      .get({ ...q.params, prefix: q.namePrefix, need, entries: need * 2 }) as number;
  };
  const count = ({ f, match }: ListQuery): Counted => {
    if (!match) return { total: countListed.get(f.branchId, JSON.stringify(f.statuses)) as number };
    if (f.countUpTo === undefined) return { total: countAll.get(match) as number };
    return cappedTotal(countSome.get(match, f.countUpTo + 1) as number, f.countUpTo);
  };

  /** A search's page from its few matches, found (their rowids, in scope). */
  const few = (q: ListQuery, ids: number[]) => ({
    counted: cappedTotal(ids.length, q.f.countUpTo),
    strategy: 'fewSorted' as const,
    q: byIds(q, ids),
  });

  /**
   * A list's total, the way to read its page, and the list that way reads (when not `q`). A
   * search sorts its matches only when it has few (figures for both ways at 1,000,000 users:
   * bench/README.md, "Figures from src/ comments"); with more, it walks the order's index, in a
   * wide scope with the matches of its words alone.
   */
  const plan = (
    q: ListQuery,
    said: readonly string[],
  ): { counted: Counted; strategy: keyof typeof STRATEGIES; q?: ListQuery } => {
    if (!q.match) return { counted: count(q), strategy: 'inOrder' };
    const [scoped, everyone] = scopeShare.get(q.f.branchId, JSON.stringify(q.f.statuses))!;
    const wide = wideScope(scoped, everyone);
    const wordCount = said.length;
    // One short word in a wide scope (one doclist of the prefix index): counted from the words
    // alone, up to the count's bound (or the few, if more) plus every user outside the scope
    // (user_counts counts every row the index holds). Found that many, the scope holds more
    // than both, without ANDing the scope's doclist (`Mü`: 3.8 -> 1 ms). Short of it, the ways
    // below. (Its counts and this read are two snapshots: a write between them moves the bound
    // by its one user, as it moves any count against its page.)
    const { countUpTo } = q.f;
    const outside = everyone - scoped;
    if (wide && wordCount === 1 && said[0]!.length <= PREFIX_INDEXED && countUpTo !== undefined) {
      const need = Math.max(countUpTo, fewMatches) + 1 + outside;
      if (outside <= countUpTo && (countSome.get(q.words, need) as number) >= need) {
        return { counted: cappedTotal(countUpTo + 1, countUpTo), strategy: 'inOrderByWords' };
      }
    }
    // One word in a wide scope: more than the bound (and the few) proven from the names that
    // begin with it, where they do (namePrefixCount).
    if (wide && wordCount === 1 && countUpTo !== undefined && q.namePrefix !== undefined) {
      const need = Math.max(countUpTo, fewMatches) + 1;
      if (namePrefixCount(q, need) >= need) {
        return { counted: cappedTotal(countUpTo + 1, countUpTo), strategy: 'inOrderByWords' };
      }
    }
    // A search with few matches sorts those rows, found once (a count and then the page read
    // the full-text side twice: a full name 9 -> 5 ms). Several words in a wide scope are found
    // from the words, each checked on the users side, without the scope's doclist (9 -> 4 ms).
    if (wide && wordCount > 1) {
      const ids = nearIds(q, fewMatches + 1);
      if (ids.length <= fewMatches) return few(q, ids);
      return { counted: count(q), strategy: 'inOrderByWords' };
    }
    // One word may match a large share (Schm: 67,480), where joining each match to its user
    // would cost more than the page; a narrow scope's token cuts the set (wideScope). So these
    // matches come from the words and the scope token, as many as the count needs, and the
    // same read is the count (FTS5 reads a prefix's terms whole before its first row: Schm's
    // 5-8 ms, paid once). All of the few, always (a read cut short would pass for all of
    // them); past those, at most MATCHES_READ for the count.
    const upTo = Math.max(fewMatches, Math.min(q.f.countUpTo ?? 0, MATCHES_READ)) + 1;
    const ids = matchIds(q.match, upTo);
    if (ids.length <= fewMatches) return few(q, ids);
    // The read counted them when it stopped short, or when the count stops sooner anyway.
    const counted =
      ids.length < upTo || (q.f.countUpTo !== undefined && q.f.countUpTo < upTo)
        ? cappedTotal(ids.length, q.f.countUpTo)
        : count(q);
    return { counted, strategy: wide ? 'inOrderByWords' : 'inOrder' };
  };
  return (f: ListFilter): UserPage => {
    const said = f.query === undefined ? undefined : searchWords(spellOut(f.query));
    if (said?.length === 0) return { total: 0, rows: [] };
    const words = said && ftsTerms(said);
    const q = listQuery(f, words, f.query === undefined ? undefined : entryProbes(f.query));
    // A status's exact count (a search's too, uncapped): only an offset past whole parts asks.
    const countOf = (status: ListFilter['statuses'][number]) =>
      count(listQuery({ ...f, statuses: [status], countUpTo: undefined }, words)).total;
    const planned = plan(q, said ?? []);
    // Many matches: their first in the order are found by walking it, where the walk finds
    // them soon enough (wordsWalk).
    const picked =
      (planned.strategy !== 'fewSorted' &&
        wordsWalk(prepared, q, walkBudget ?? WALK_ROWS_PER_ROW * q.want)) ||
      STRATEGIES[planned.strategy](prepared, planned.q ?? q, countOf);
    const { counted } = planned;
    // Then only the page's rows, by rowid, in that order.
    const page = picked.slice(0, f.limit);
    const rows =
      page.length === 0
        ? []
        : (
            prepared(
              `SELECT ${USERS_VIEW} FROM json_each(@ids) AS page JOIN users ON users.rowid = page.value ORDER BY page.key`,
            ).all({ ids: JSON.stringify(page.map((p) => p.at(-1))) }) as unknown[][]
          ).map(viewOf);
    // A page of none (limit 0: the count alone) has no position to go on from.
    const next = picked.length > f.limit && page.length > 0 ? positionOf(page.at(-1)!) : undefined;
    return next ? { ...counted, rows, next } : { ...counted, rows };
  };
}

/**
 * The list on a connection of its own (a search thread's): each call one read transaction, so
 * all its statements see one snapshot. In the main thread nothing can write between them (the
 * driver is synchronous); beside it, a commit could land between the matches' ids and their
 * rows, and the page show a user deleted since, or no longer matching.
 */
export function snapshotList(db: Db, prepared: Prepared, fewMatches: number, walkBudget?: number) {
  return db.transaction(usersList(db, prepared, fewMatches, walkBudget));
}
