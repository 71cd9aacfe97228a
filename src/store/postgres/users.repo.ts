/** Every SQL statement on users, for PostgreSQL (lists: users-list.ts); as ../sqlite/ answers. */
import { userEvent } from '../common/changes.js';
import { IDENTITY_COLUMNS } from '../common/identity-columns.js';
import type { Notifier } from '../common/notifier.js';
import { OBJECT_ID } from '../ids.js';
import type { UsersRepo } from '../store.js';
import {
  type NewUserRow,
  type OutboxMessage,
  USER_ROW_COLUMNS,
  type UserRow,
  type UserView,
  VIEW_COLUMNS,
} from '../types.js';
import { type Pool, type Queryable, query, transaction } from './db.js';
import { recordEventAtCommit } from './events.repo.js';
import { freshBatch } from './fresh-read.js';
import { enqueue } from './outbox.repo.js';
import { listUsers } from './users-list.js';

/**
 * A search with at most this many matches reads them all and sorts them; with more, the order's
 * index gives the first page after ~100 × users / matches rows (at 1,000,000 users: at most as
 * many rows as this either way).
 */
const FEW_MATCHES = 10_000;

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
        recordEventAtCommit(client, userEvent(undefined, row)!, audit, place(row));
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
        if (event) recordEventAtCommit(client, event, audit, place(after));
        return after;
      }).then(notified),

    list: (f) => listUsers(pool, f, fewMatches),
  };
}
