/** Every SQL statement on users, for PostgreSQL; the same answers as ../sqlite/users.repo.ts. */
import { userEvent } from '../common/changes.js';
import { IDENTITY_COLUMNS } from '../common/identity-columns.js';
import { KEY_COLUMNS, keysetRanges, orderTerms, positionOf } from '../common/keyset.js';
import type { Notifier } from '../common/notifier.js';
import { cappedTotal, searchWords } from '../common/search.js';
import { sortColumns } from '../common/sort-columns.js';
import { OBJECT_ID } from '../ids.js';
import type { UsersRepo } from '../store.js';
import {
  type ListFilter,
  type NewUserRow,
  type OutboxMessage,
  USER_ROW_COLUMNS,
  type UserPage,
  type UserRow,
  type UserView,
  VIEW_COLUMNS,
} from '../types.js';
import { type Pool, type Queryable, query, transaction } from './db.js';
import { recordEvent } from './events.repo.js';
import { freshBatch } from './fresh-read.js';
import { enqueue } from './outbox.repo.js';
import { NOCASE } from './schema-sql.js';

/**
 * A search with at most this many matches reads them all and sorts them; with more, the order's
 * index gives the first page after ~100 × users / matches rows (at 1,000,000 users: at most as
 * many rows as this either way).
 */
const FEW_MATCHES = 10_000;

/** Names as stored columns ordered as SQLite orders them (see schema.ts). */
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

// The stored columns a user row has (the sort keys and search vector stay inside).
const USER_COLUMNS = USER_ROW_COLUMNS.join(', ');

const quote = (column: string) => `"${column.replace(/"/g, '')}"`;

const VIEW = VIEW_COLUMNS.join(', ');

/**
 * Live users by (branch, id or else externalId), many keys in one statement: each key's row, the
 * id match first, numbered by the key's place: two index lookups per key at most.
 */
const FIND_MANY = `SELECT k.i, ${VIEW_COLUMNS.map((c) => `u.${c}`).join(', ')}
  FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS k(branch_id, key, i)
  CROSS JOIN LATERAL (
    SELECT 0 AS preference, ${VIEW} FROM users
      WHERE branch_id = k.branch_id AND id = k.key AND status <> 'deleted'
    UNION ALL
    SELECT 1, ${VIEW} FROM users
      WHERE branch_id = k.branch_id AND external_id = k.key AND status <> 'deleted'
    ORDER BY preference LIMIT 1
  ) AS u`;

/** The columns an answer shows (see VIEW_COLUMNS), read in batches (fresh-read.ts). */
function userFinder(pool: Pool) {
  const findMany = freshBatch<{ branchId: number; key: string }, UserView | undefined>(
    async (keys) => {
      const { rows } = await query<UserView & { i: number }>(pool, FIND_MANY, [
        keys.map((k) => k.branchId),
        keys.map((k) => k.key),
      ]);
      const found: (UserView | undefined)[] = keys.map(() => undefined);
      for (const { i, ...view } of rows) found[i - 1] = view;
      return found;
    },
  );
  return (branchId: number, key: string) => findMany({ branchId, key });
}

/**
 * A live user of the branch by id, else by externalId, with every column and locked for the rest
 * of the transaction: for a write's decision.
 */
async function lockUser(db: Queryable, branchId: number, key: string) {
  // Only an objectId-shaped key can be an id; an externalId may look like one too.
  if (OBJECT_ID.test(key)) {
    const { rows } = await query<UserRow>(
      db,
      `SELECT ${USER_COLUMNS} FROM users WHERE branch_id = $1 AND id = $2 AND status <> 'deleted' FOR UPDATE`,
      [branchId, key],
    );
    if (rows[0]) return rows[0];
  }
  const { rows } = await query<UserRow>(
    db,
    `SELECT ${USER_COLUMNS} FROM users WHERE branch_id = $1 AND external_id = $2 AND status <> 'deleted' FOR UPDATE`,
    [branchId, key],
  );
  return rows[0];
}

export function usersRepo(pool: Pool, notifier: Notifier, fewMatches = FEW_MATCHES): UsersRepo {
  const place = (row: { tenant_id: number; branch_id: number }) => ({
    tenantId: row.tenant_id,
    branchId: row.branch_id,
  });
  const notified = <T>(written: T) => {
    notifier.notify();
    return written;
  };
  // A query's words as a tsquery's text: each a required prefix, normalised as the stored vector
  // is; a word that normalises to nothing (a lone combining mark) is dropped rather than matching
  // all, and '' when none is left. A statement of its own, so that the page and the count get
  // the words as a value their plans can see (see planEachTime).
  const searchQuery = async (words: string[]) =>
    (
      await query<{ q: string }>(
        pool,
        `SELECT coalesce(string_agg(w || ':*', ' & '), '') AS q
         FROM (SELECT regexp_replace(roster_search_text(word), ' ', '', 'g') AS w
               FROM unnest($1::text[]) AS word) AS words
         WHERE w <> ''`,
        [words],
      )
    ).rows[0]!.q;

  return {
    find: userFinder(pool),

    async findBy(tenantId, branchId, field, key) {
      const { rows } = await query<UserView>(
        pool,
        `SELECT ${VIEW} FROM users WHERE tenant_id = $1 AND ${IDENTITY_COLUMNS[field]} = $2
           AND status <> 'deleted' AND branch_id = $3`,
        [tenantId, key, branchId],
      );
      return rows[0];
    },

    insert: (row: NewUserRow, audit, invitation?: OutboxMessage) =>
      transaction(pool, async (client) => {
        const cols = Object.keys(row);
        const { rows } = await query<{ rowid: number }>(
          client,
          `INSERT INTO users (${cols.map(quote).join(', ')})
           VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING rowid`,
          Object.values(row),
        );
        if (invitation) await enqueue(client, invitation);
        await recordEvent(client, userEvent(undefined, row)!, audit, place(row));
        return { ...row, rowid: rows[0]!.rowid };
      }).then(notified),

    update: (branchId, key, decide, audit) =>
      transaction(pool, async (client) => {
        const row = await lockUser(client, branchId, key);
        if (!row) return undefined;
        const changes = decide(row);
        const cols = Object.keys(changes).sort();
        if (cols.length === 0) return row;
        const { rows } = await query<UserRow>(
          client,
          `UPDATE users SET ${cols.map((c, i) => `${quote(c)} = $${i + 2}`).join(', ')}
           WHERE rowid = $1 RETURNING ${USER_COLUMNS}`,
          [row.rowid, ...cols.map((c) => changes[c as keyof typeof changes])],
        );
        const after = rows[0]!;
        const event = userEvent(row, after);
        if (event) await recordEvent(client, event, audit, place(after));
        return after;
      }).then(notified),

    async list(f) {
      const words = f.query === undefined ? undefined : searchWords(f.query);
      if (words?.length === 0) return { total: 0, rows: [] };
      const search = words && (await searchQuery(words));
      if (search === '') return { total: 0, rows: [] };
      const values: unknown[] = [f.branchId, f.statuses];
      const where = ['branch_id = $1', 'status = ANY($2::text[])'];
      if (search) {
        values.push(search);
        where.push(`search @@ to_tsquery('simple', $3)`);
      }
      // A search's statements are planned with its words (see planEachTime).
      const planned = { planEachTime: search !== undefined };
      const terms = orderTerms(f, SORT_COLUMNS, { firstName: NAME_BIND, lastName: NAME_BIND });
      // NULLS placement only where a key can be NULL: PostgreSQL matches an index's order with
      // it exactly, and a NOT NULL key's index in the default placement would not match
      // (createdAt's first page at 1M became a scan and top-N sort of every user: bench/README.md,
      // "A million users").
      const order = terms
        .map((t) =>
          t.nullable
            ? `${t.expr} ${t.dir} ${t.dir === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}`
            : `${t.expr} ${t.dir}`,
        )
        .join(', ');
      const filter = where.join(' AND ');
      // Aliased: a sort by status names that column twice.
      const keys = POSITION_COLUMNS(f)
        .map((c, i) => `${c} AS p${i}`)
        .join(', ');
      const want = f.limit + 1;
      // The page's positions, one more than asked to know whether more follow: by offset, or
      // range by range after a position (keyset.ts), each from an index where one fits.
      const positions = async (text: string, bound: unknown[]) =>
        (await query<Record<string, unknown>>(pool, text, bound, planned)).rows.map(Object.values);
      // Few matches are read from the full-text index and then sorted (`OFFSET 0` keeps the
      // planner from merging the two): not knowing how few, it walked the order's index past
      // every user for a word no one has (5.1 s at 1,000,000 users; bench/README.md, "A million
      // users"). Many matches come soonest in the order's own index.
      const pick = async (few: boolean): Promise<unknown[][]> => {
        const source = few ? `(SELECT * FROM users WHERE ${filter} OFFSET 0) AS users` : 'users';
        const rest = few ? 'true' : filter;
        if (!f.after) {
          const n = values.length;
          return positions(
            `SELECT ${keys} FROM ${source} WHERE ${rest} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
            [...values, want, f.offset],
          );
        }
        const picked: unknown[][] = [];
        for (const range of keysetRanges(terms, f.after)) {
          const bound = [...values];
          const conditions = range((value) => {
            bound.push(value);
            return `$${bound.length}`;
          });
          bound.push(want - picked.length);
          picked.push(
            ...(await positions(
              `SELECT ${keys} FROM ${source} WHERE ${rest} AND ${conditions.join(' AND ')} ORDER BY ${order} LIMIT $${bound.length}`,
              bound,
            )),
          );
          if (picked.length >= want) break;
        }
        return picked;
      };
      // Without a query, the total is the counts the trigger keeps (migration 6), not a count;
      // a search's matches are counted, up to countUpTo (then one more, to know there are more)
      // as the caller allows.
      const count = async (): Promise<Pick<UserPage, 'total' | 'totalExact'>> => {
        if (!words) {
          const { rows } = await query<{ total: number }>(
            pool,
            `SELECT coalesce(sum(n), 0) AS total FROM user_counts
             WHERE branch_id = $1 AND status = ANY($2::text[])`,
            [f.branchId, f.statuses],
          );
          return { total: rows[0]!.total };
        }
        const upTo = f.countUpTo;
        const { rows } = await query<{ total: number }>(
          pool,
          upTo === undefined
            ? `SELECT count(*) AS total FROM users WHERE ${filter}`
            : `SELECT count(*) AS total FROM (SELECT 1 FROM users WHERE ${filter} LIMIT $4) AS m`,
          upTo === undefined ? values : [...values, upTo + 1],
          planned,
        );
        return cappedTotal(rows[0]!.total, upTo);
      };
      // A search's first page by offset reads its matches once, up to one more than few: how
      // many there are, and the page, sorted, when that is all of them (a count and then the
      // page scanned the full-text index twice).
      const readFew = async () => {
        const n = values.length;
        const { rows } = await query<Record<string, unknown> & { matches: number }>(
          pool,
          `SELECT ${keys}, count(*) OVER () AS matches
           FROM (SELECT * FROM users WHERE ${filter} LIMIT $${n + 1}) AS users
           ORDER BY ${order} LIMIT $${n + 2} OFFSET $${n + 3}`,
          [...values, fewMatches + 1, want, f.offset],
          planned,
        );
        // An offset past the last match leaves no row to say how many there were.
        const matches = rows[0]?.matches;
        const picked = rows.map(({ matches: _, ...position }) => Object.values(position));
        return { matches: matches === undefined ? undefined : Number(matches), picked };
      };
      // How many match, as the planner expects: right for common words, whose frequencies its
      // statistics keep (at 1M users within 5 %), and a guess of ~0.4 % for any other, however
      // rare (a word no user has: 3,715).
      const expected = async () => {
        const { rows } = await query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
          pool,
          `EXPLAIN (FORMAT JSON) SELECT 1 FROM users WHERE ${filter}`,
          values,
          planned,
        );
        return rows[0]!['QUERY PLAN'][0].Plan['Plan Rows'];
      };
      // A search of words the planner knows to be common reads its page in the order's index,
      // with its count beside it. Any other first learns how many match, which says how to read
      // its page.
      const searchPage = async () => {
        if ((await expected()) > fewMatches) {
          const [counted, picked] = await Promise.all([count(), pick(false)]);
          return { counted, picked };
        }
        if (!f.after) {
          const few = await readFew();
          if (few.matches !== undefined && few.matches <= fewMatches) {
            return { counted: cappedTotal(few.matches, f.countUpTo), picked: few.picked };
          }
          // More than few, or past the last: the bound, when it is no higher, needs no count.
          const counted =
            few.matches !== undefined && f.countUpTo !== undefined && f.countUpTo <= fewMatches
              ? cappedTotal(few.matches, f.countUpTo)
              : await count();
          const many = counted.totalExact === false || counted.total > fewMatches;
          return { counted, picked: many ? await pick(false) : [] };
        }
        const counted = await count();
        return {
          counted,
          picked: await pick(counted.totalExact !== false && counted.total <= fewMatches),
        };
      };
      // A list's first page by offset, without a search: its positions from the order's index,
      // then those rows by primary key, in one statement (ARRAY() makes the positions a value
      // the outer scan looks up one by one; joined as a subquery, the planner hashed every user).
      const listPage = async () => {
        const n = values.length;
        const { rows } = await query<Record<string, unknown>>(
          pool,
          `SELECT ${keys}, ${VIEW} FROM users
           WHERE rowid = ANY(ARRAY(SELECT rowid FROM users WHERE ${filter}
                                   ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}))
           ORDER BY ${order}`,
          [...values, want, f.offset],
        );
        const width = POSITION_COLUMNS(f).length;
        return {
          picked: rows.map((r) => Object.values(r).slice(0, width)),
          rows: rows.slice(0, f.limit).map((r) => {
            const view: Record<string, unknown> = {};
            for (const c of VIEW_COLUMNS) view[c] = r[c];
            return view as unknown as UserView;
          }),
        };
      };
      // A list's count and page go on two pool connections at once (separate statements either
      // way, so no shared snapshot is given up).
      const read = async (): Promise<{
        counted: Pick<UserPage, 'total' | 'totalExact'>;
        picked: unknown[][];
        rows?: UserView[];
      }> => {
        if (search) return searchPage();
        if (f.after) {
          const [counted, picked] = await Promise.all([count(), pick(false)]);
          return { counted, picked };
        }
        const [counted, page] = await Promise.all([count(), listPage()]);
        return { counted, ...page };
      };
      const { counted, picked, rows: given } = await read();
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
    },
  };
}
