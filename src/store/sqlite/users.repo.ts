/** Every SQL statement on users. Rows in, `UserRecord`s out; rules live in the service. */
import type { IdentityField } from '../../contract/identity.js';
import { userEvent } from '../common/changes.js';
import { IDENTITY_COLUMNS } from '../common/identity-columns.js';
import { SEARCH_FIELDS } from '../common/search.js';
import { OBJECT_ID } from '../ids.js';
import {
  type Audit,
  type NewUserRow,
  type OutboxMessage,
  type UserColumns,
  type UserRow,
  type UserView,
  VIEW_COLUMNS,
  viewOf,
} from '../types.js';
import { type Db, statementCache } from './db.js';
import { rethrowUnique } from './errors.js';
import type { SqliteEvents } from './events.repo.js';
import { searchEntry } from './fts-words.js';
import type { outboxRepo } from './outbox.repo.js';
import { usersList } from './users-list.js';

/** A search with at most this many matches reads them by rowid and sorts them (users-list.ts). */
export const FEW_MATCHES = 2000;

const VIEW = VIEW_COLUMNS.join(', ');

export function usersRepo(
  db: Db,
  outbox: ReturnType<typeof outboxRepo>,
  events: SqliteEvents,
  fewMatches = FEW_MATCHES,
  walkBudget?: number,
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
  const cached = statementCache(db);
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
      // Its words as the full-text index makes them (fts-words.ts), for a search walking an order.
      const written = { ...row, words: searchEntry(row) };
      const cols = Object.keys(written);
      const sql = `INSERT INTO users (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`;
      try {
        return db.transaction(() => {
          const rowid = Number(cached(sql).run(written).lastInsertRowid);
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
            const decided = decide(row);
            const changes = SEARCH_FIELDS.some((c) => c in decided)
              ? { ...decided, words: searchEntry({ ...row, ...decided }) }
              : decided;
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
    list: usersList(db, cachedRaw, fewMatches, walkBudget),
  };
}
