/** Every SQL statement on users. Rows in, `UserRecord`s out; rules live in the service. */
import type { IdentityField } from '../../contract/identity.js';
import type { SortKey } from '../../contract/user.js';
import { userEvent } from '../common/changes.js';
import { IDENTITY_COLUMNS } from '../common/identity-columns.js';
import { keysetRanges, orderTerms, positionColumns, positionOf } from '../common/keyset.js';
import { cappedTotal, searchWords, spellOut } from '../common/search.js';
import { sortColumns } from '../common/sort-columns.js';
import { OBJECT_ID } from '../ids.js';
import {
  type Audit,
  type ListFilter,
  type NewUserRow,
  type OutboxMessage,
  type UserColumns,
  type UserPage,
  type UserRow,
  type UserView,
  VIEW_COLUMNS,
  viewOf,
} from '../types.js';
import type { Db } from './db.js';
import { rethrowUnique } from './errors.js';
import type { SqliteEvents } from './events.repo.js';
import type { outboxRepo } from './outbox.repo.js';

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

/** A search with at most this many matches reads them by rowid and sorts them (see list). */
const FEW_MATCHES = 2000;

/**
 * A free-text query as an FTS5 expression: every word a quoted prefix term, all required.
 * Quoting makes FTS syntax in user input (`AND`, `*`, `"`, `NEAR(`) plain text. Spelled out as
 * the entries are (migration 16).
 */
export function ftsExpression(query: string): string | null {
  const words = searchWords(spellOut(query));
  if (words.length === 0) return null;
  return words.map((w) => `"${w}"*`).join(' ');
}

const VIEW = VIEW_COLUMNS.join(', ');
/** The same, qualified: beside json_each, whose columns include an \`id\`. */
const USERS_VIEW = VIEW_COLUMNS.map((c) => `users.${c}`).join(', ');

/** A user's branch and status as one token of its full-text entry (see migration 6). */
const scopeToken = (branchId: number, status: string) => `b${branchId}${status}`;

export function usersRepo(
  db: Db,
  outbox: ReturnType<typeof outboxRepo>,
  events: SqliteEvents,
  fewMatches = FEW_MATCHES,
) {
  const place = (row: { tenant_id: number; branch_id: number }) => ({
    tenantId: row.tenant_id,
    branchId: row.branch_id,
  });
  // A live user by id or by externalId: every column (for a write's decision), or only those an
  // answer shows, as raw values (see viewOf).
  const live = (key: 'id' | 'external_id', columns: string) =>
    db.prepare<[number, string]>(
      `SELECT ${columns} FROM users WHERE branch_id = ? AND ${key} = ? AND status <> 'deleted'`,
    );
  const rowById = live('id', '*');
  const rowByExternalId = live('external_id', '*');
  const viewById = live('id', VIEW).raw();
  const viewByExternalId = live('external_id', VIEW).raw();
  const byRowid = db.prepare<[number], UserRow>('SELECT * FROM users WHERE rowid = ?');
  // tenant_id first: the unique index on each key is (tenant_id, key) for live users.
  const identityLookup = (column: string) =>
    db
      .prepare<[number, string, number]>(
        `SELECT ${VIEW} FROM users WHERE tenant_id = ? AND ${column} = ? AND status <> 'deleted' AND branch_id = ?`,
      )
      .raw();
  const byIdentity = {
    externalId: identityLookup(IDENTITY_COLUMNS.externalId),
    email: identityLookup(IDENTITY_COLUMNS.email),
    userName: identityLookup(IDENTITY_COLUMNS.userName),
  };
  const statements = new Map<string, ReturnType<Db['prepare']>>();
  const cached = (sql: string, raw = false) => {
    const key = raw ? `raw:${sql}` : sql;
    let stmt = statements.get(key);
    if (!stmt) {
      stmt = db.prepare(sql);
      if (raw) stmt.raw();
      statements.set(key, stmt);
    }
    return stmt;
  };
  /** The same, giving rows as arrays of values (see viewOf). */
  const cachedRaw = (sql: string) => cached(sql, true);

  // Only an objectId-shaped key can be an id; an externalId may look like one too.
  const findRow = (branchId: number, key: string) =>
    ((OBJECT_ID.test(key) ? rowById.get(branchId, key) : undefined) ??
      rowByExternalId.get(branchId, key)) as UserRow | undefined;
  const find = (branchId: number, key: string): UserView | undefined => {
    const values = ((OBJECT_ID.test(key) ? viewById.get(branchId, key) : undefined) ??
      viewByExternalId.get(branchId, key)) as unknown[] | undefined;
    return values && viewOf(values);
  };

  // A list's total without a query: the counts the triggers keep (migration 10), not a count.
  const countListed = db
    .prepare<[number, string]>(
      `SELECT coalesce(sum(n), 0) FROM user_counts
       WHERE branch_id = ? AND status IN (SELECT value FROM json_each(?))`,
    )
    .pluck();
  // A search's: its matches counted from the full-text index, up to countUpTo (then one more,
  // to know there are more) as the caller allows.
  const countAll = db.prepare('SELECT count(*) FROM users_fts WHERE users_fts MATCH ?').pluck();
  const countSome = db
    .prepare('SELECT count(*) FROM (SELECT 1 FROM users_fts WHERE users_fts MATCH ? LIMIT ?)')
    .pluck();
  const countMatches = (match: string, upTo?: number): Pick<UserPage, 'total' | 'totalExact'> => {
    if (upTo === undefined) return { total: countAll.get(match) as number };
    return cappedTotal(countSome.get(match, upTo + 1) as number, upTo);
  };

  return {
    find,
    findBy(tenantId: number, branchId: number, field: IdentityField, key: string) {
      const values = byIdentity[field].get(tenantId, key, branchId) as unknown[] | undefined;
      return values && viewOf(values);
    },
    /**
     * Inserts a user and, in the same transaction, the invitation announcing them: a crash
     * leaves both or neither, so a committed user is always invited.
     */
    insert(row: NewUserRow, audit: Audit, invitation?: OutboxMessage): UserRow {
      const cols = Object.keys(row);
      const sql = `INSERT INTO users (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`;
      try {
        return db.transaction(() => {
          const rowid = Number(cached(sql).run(row).lastInsertRowid);
          if (invitation) outbox.enqueue(invitation);
          events.record(userEvent(undefined, row)!, audit, place(row));
          return { ...row, rowid };
        })();
      } catch (err) {
        rethrowUnique(err);
      }
    },
    /** Read, decide and write in one immediate transaction: nothing can interleave. */
    update(
      branchId: number,
      key: string,
      decide: (row: UserRow) => Partial<UserColumns>,
      audit: Audit,
    ): UserRow | undefined {
      try {
        return db
          .transaction(() => {
            const row = findRow(branchId, key);
            if (!row) return undefined;
            const changes = decide(row);
            const cols = Object.keys(changes).sort();
            if (cols.length === 0) return row;
            const sql = `UPDATE users SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE rowid = @rowid`;
            cached(sql).run({ ...changes, rowid: row.rowid });
            const after = byRowid.get(row.rowid)!;
            const event = userEvent(row, after);
            if (event) events.record(event, audit, place(after));
            return after;
          })
          .immediate();
      } catch (err) {
        rethrowUnique(err);
      }
    },
    list(f: ListFilter): UserPage {
      const words = f.query === undefined ? undefined : ftsExpression(f.query);
      if (words === null) return { total: 0, rows: [] };
      // The words in the user's fields, and the branch and status in the entry's scope token
      // (migration 6): FTS5 alone answers which users of the branch match.
      const match =
        words &&
        `(- {scope} : (${words})) AND scope : (${f.statuses.map((s) => `"${scopeToken(f.branchId, s)}"`).join(' OR ')})`;
      const where = [
        'branch_id = @branchId',
        `status IN (${f.statuses.map((_, i) => `@s${i}`).join(', ')})`,
        ...(match ? ['rowid IN (SELECT rowid FROM users_fts WHERE users_fts MATCH @match)'] : []),
      ].join(' AND ');
      // status before rowid: a harmless tie-break that lets users_by_name order a page alone.
      const terms = orderTerms(f, SORT_COLUMNS);
      const order = terms.map((t) => `${t.expr} ${t.dir}`).join(', ');
      const params: Record<string, unknown> = { branchId: f.branchId, match };
      f.statuses.forEach((s, i) => {
        params[`s${i}`] = s;
      });
      if (!match) delete params.match;
      const counted = match
        ? countMatches(match, f.countUpTo)
        : { total: countListed.get(f.branchId, JSON.stringify(f.statuses)) as number };
      // The page's positions first (index-only where an index fits), one more than asked to
      // know whether more follow; then only the page's rows, by rowid, in that order.
      const want = f.limit + 1;
      const keys = positionColumns(f).join(', ');
      // Named, as SORT_INDEX says; for a search too, where the planner (no statistics) walked
      // another index whole and sorted every match. Only few matches are read from the
      // full-text side: each by rowid, then sorted (figures for both at 1,000,000 users:
      // bench/README.md, "Figures from src/ comments").
      const few = counted.totalExact !== false && counted.total <= fewMatches;
      const from =
        match && few ? 'users NOT INDEXED' : `users INDEXED BY ${SORT_INDEX[f.sort[0]!.key]}`;
      let picked: unknown[][] = [];
      if (!f.after) {
        picked = cachedRaw(
          `SELECT ${keys} FROM ${from} WHERE ${where} ORDER BY ${order} LIMIT @limit OFFSET @offset`,
        ).all({ ...params, limit: want, offset: f.offset }) as unknown[][];
      } else {
        for (const range of keysetRanges(terms, f.after)) {
          const bound: Record<string, unknown> = {};
          const conditions = range((value) => {
            const name = `k${Object.keys(bound).length}`;
            bound[name] = value;
            return `@${name}`;
          });
          const sql = `SELECT ${keys} FROM ${from} WHERE ${where} AND ${conditions.join(' AND ')} ORDER BY ${order} LIMIT @limit`;
          picked.push(
            ...(cachedRaw(sql).all({
              ...params,
              ...bound,
              limit: want - picked.length,
            }) as unknown[][]),
          );
          if (picked.length >= want) break;
        }
      }
      const page = picked.slice(0, f.limit);
      const rows =
        page.length === 0
          ? []
          : (
              cachedRaw(
                `SELECT ${USERS_VIEW} FROM json_each(@ids) AS page JOIN users ON users.rowid = page.value ORDER BY page.key`,
              ).all({ ids: JSON.stringify(page.map((p) => p.at(-1))) }) as unknown[][]
            ).map(viewOf);
      // A page of none (limit 0: the count alone) has no position to go on from.
      const next =
        picked.length > f.limit && page.length > 0 ? positionOf(page.at(-1)!) : undefined;
      return next ? { ...counted, rows, next } : { ...counted, rows };
    },
  };
}
