/** The outbox table: messages committed with the change that caused them, kept until delivered. */
import type { Db } from './db.js';

/** A message as composed by the service, ready to go (the whole RFC 5322 text). */
export interface OutboxMessage {
  messageId: string;
  recipient: string;
  /** A stable name for the `.eml` transport: a redelivery overwrites, never duplicates. */
  fileName: string;
  message: string;
}

export interface QueuedMessage extends OutboxMessage {
  id: number;
  attempts: number;
}

type Row = {
  id: number;
  message_id: string;
  recipient: string;
  file_name: string;
  message: string;
  attempts: number;
};

export function outboxRepo(db: Db) {
  const insert = db.prepare<[string, string, string, string, string, number]>(
    `INSERT INTO outbox (message_id, recipient, file_name, message, created_at, next_attempt_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (message_id) DO NOTHING`,
  );
  const due = db.prepare<[number, number], Row>(
    'SELECT * FROM outbox WHERE next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?',
  );
  const next = db.prepare<[], { at: number | null }>(
    'SELECT min(next_attempt_at) AS at FROM outbox',
  );
  const remove = db.prepare<[number]>('DELETE FROM outbox WHERE id = ?');
  const retry = db.prepare<[number, string, number]>(
    'UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?',
  );
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM outbox');

  return {
    /** Queues a message; call inside the transaction of the change it announces. */
    enqueue(m: OutboxMessage, now = Date.now()): void {
      insert.run(m.messageId, m.recipient, m.fileName, m.message, new Date(now).toISOString(), now);
    },
    /** Messages due at `now`, oldest first. */
    due(now: number, limit = 50): QueuedMessage[] {
      return due.all(now, limit).map((r) => ({
        id: r.id,
        messageId: r.message_id,
        recipient: r.recipient,
        fileName: r.file_name,
        message: r.message,
        attempts: r.attempts,
      }));
    },
    /** When the next message falls due (ms since the epoch), or undefined when none waits. */
    nextDue: (): number | undefined => next.get()?.at ?? undefined,
    delivered: (id: number) => void remove.run(id),
    failed: (id: number, error: string, nextAttemptAt: number) =>
      void retry.run(nextAttemptAt, error.slice(0, 500), id),
    pending: (): number => count.get()?.n ?? 0,
  };
}
