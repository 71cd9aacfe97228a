/** The outbox table: messages committed with the change that caused them, kept until delivered. */
import { type OutboxRow, queuedOf } from '../common/rows.js';
import type { OutboxMessage, QueuedMessage } from '../types.js';
import type { Db } from './db.js';

export function outboxRepo(db: Db) {
  const insert = db.prepare<[string, string, string, string, string, number]>(
    `INSERT INTO outbox (message_id, recipient, file_name, message, created_at, next_attempt_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (message_id) DO NOTHING`,
  );
  const due = db.prepare<[number, number], OutboxRow>(
    'SELECT * FROM outbox WHERE next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?',
  );
  const next = db.prepare<[], { at: number | null }>(
    'SELECT min(next_attempt_at) AS at FROM outbox',
  );
  const remove = db.prepare<[number]>('DELETE FROM outbox WHERE id = ?');
  // Invitation Message-IDs are <invitation.USERID@host> (mail/invitation.ts); ids are hex.
  const cancel = db.prepare<[string]>('DELETE FROM outbox WHERE message_id LIKE ?');
  const retry = db.prepare<[number, string, number]>(
    'UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?',
  );
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM outbox');

  return {
    /** Queues a message; call inside the transaction of the change it announces. */
    enqueue(m: OutboxMessage, now = Date.now()): void {
      insert.run(m.messageId, m.recipient, m.fileName, m.message, new Date(now).toISOString(), now);
    },
    /**
     * The messages due at `now`, oldest first. No claim is recorded: one process serves a data
     * dir (data-dir/lock.ts), so nobody else could take them, and a crash must not delay them.
     */
    due(now: number, limit = 50): QueuedMessage[] {
      return due.all(now, limit).map(queuedOf);
    },
    /** When the next message falls due (ms since the epoch), or undefined when none waits. */
    nextDue: (): number | undefined => next.get()?.at ?? undefined,
    delivered: (id: number) => void remove.run(id),
    failed: (id: number, error: string, nextAttemptAt: number) =>
      void retry.run(nextAttemptAt, error.slice(0, 500), id),
    pending: (): number => count.get()?.n ?? 0,
    cancelInvitation: (userId: string): number => cancel.run(`<invitation.${userId}@%`).changes,
  };
}
