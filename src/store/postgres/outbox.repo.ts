/** The outbox table in PostgreSQL: messages committed with their change, claimed by replicas. */

import { type OutboxRow, queuedOf } from '../common/rows.js';
import type { OutboxRepo } from '../store.js';
import type { OutboxMessage, QueuedMessage } from '../types.js';
import { type Pool, type Queryable, query } from './db.js';

/** Queues a message; call with the client of the transaction of the change it announces. */
export async function enqueue(db: Queryable, m: OutboxMessage, now = Date.now()): Promise<void> {
  await query(
    db,
    `INSERT INTO outbox (message_id, recipient, file_name, message, created_at, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (message_id) DO NOTHING`,
    [m.messageId, m.recipient, m.fileName, m.message, new Date(now).toISOString(), now],
  );
}

export function outboxRepo(pool: Pool): OutboxRepo {
  return {
    async due(now, claimMs, limit = 50): Promise<QueuedMessage[]> {
      // SKIP LOCKED: replicas claiming at once take different messages instead of waiting.
      const { rows } = await query<OutboxRow>(
        pool,
        `UPDATE outbox SET next_attempt_at = $2 WHERE id IN (
           SELECT id FROM outbox WHERE next_attempt_at <= $1
           ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING id, message_id, recipient, file_name, message, attempts`,
        [now, now + claimMs, limit],
      );
      return rows.sort((a, b) => a.id - b.id).map(queuedOf);
    },
    async nextDue() {
      const { rows } = await query<{ at: number | null }>(
        pool,
        'SELECT min(next_attempt_at) AS at FROM outbox',
      );
      return rows[0]?.at ?? undefined;
    },
    async delivered(id) {
      await query(pool, 'DELETE FROM outbox WHERE id = $1', [id]);
    },
    async failed(id, error, nextAttemptAt) {
      await query(
        pool,
        `UPDATE outbox SET attempts = attempts + 1, next_attempt_at = $1, last_error = $2
         WHERE id = $3`,
        [nextAttemptAt, error.slice(0, 500), id],
      );
    },
    async pending() {
      const { rows } = await query<{ n: number }>(pool, 'SELECT count(*) AS n FROM outbox');
      return rows[0]?.n ?? 0;
    },
    // Invitation Message-IDs are <invitation.USERID@host> (mail/invitation.ts); ids are hex.
    async cancelInvitation(userId) {
      const { rowCount } = await query(pool, 'DELETE FROM outbox WHERE message_id LIKE $1', [
        `<invitation.${userId}@%`,
      ]);
      return rowCount ?? 0;
    },
  };
}
