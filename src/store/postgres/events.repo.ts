/**
 * The event log in PostgreSQL, shared by every replica. `recordEvent` is the last statement of
 * the transaction of the write it describes (the users, media and tokens repositories call it).
 *
 * Why the lock: a sequence's numbers are taken in one order and committed in another, so a
 * follower reading "after 41" could see 43 while 42 is still uncommitted and then never go back
 * for it. Each event-writing transaction takes its tenant's transaction-scoped advisory lock
 * right before its event is numbered, as its last step, and keeps it until commit; PostgreSQL
 * makes a transaction visible before it releases its locks, so the next number is taken only
 * after the previous one is visible (or rolled back). Within a tenant, sequence order is commit
 * order, and a reader that sees sequence n sees every lower one (docs/events.md).
 *
 * The lock is held for the commit record, not for its flush: an event-writing transaction
 * commits without waiting for the disk and waits after, with the lock released (db.ts
 * commitBeforeFlush), so a tenant's writes share their flushes instead of taking turns at them.
 * A follower lists only what is on disk (`list` waits for the flush of what it read): what a
 * crash takes back was never handed on, and no sequence a follower saw is handed out again.
 */

import pg from 'pg';
import {
  EVENT_COLUMNS,
  type EventRow,
  eventOf,
  eventRow,
  sequenceEdges,
} from '../common/event-rows.js';
import type { Notifier } from '../common/notifier.js';
import type { EventsRepo } from '../store.js';
import type { Audit, EventFilter, EventPage, NewEvent } from '../types.js';
import {
  type Client,
  commitBeforeFlush,
  durable,
  type Pool,
  type Queryable,
  query,
  sendWithCommit,
} from './db.js';

const BIGINT_COLUMNS: ReadonlySet<string> = new Set(['tenant_id', 'branch_id']);

/**
 * The lock and the row in one call (roster_record_event, PostgreSQL migration 14): it takes
 * the tenant's numbering lock (class 0x45766e74, "Evnt"; the tenant id its second key), then
 * inserts the row, whose sequence, a column default, is drawn as it is inserted, so after the
 * lock as above. A function, so its INSERT is planned once per connection: sent as literals in
 * the COMMIT's message (recordEventAtCommit: the simple protocol, which keeps no plan), an
 * INSERT was parsed and planned at every write. Its arguments follow EVENT_COLUMNS, which the
 * function lists in the same order (test/store/migrations-schema.test.ts checks the two agree).
 */
const recordSql = (tenant: string, values: readonly string[]) =>
  `SELECT roster_record_event(${tenant}, ${values.join(', ')})`;

const typeOf = (column: string) => (BIGINT_COLUMNS.has(column) ? 'bigint' : 'text');

const RECORD = recordSql(
  '$1',
  EVENT_COLUMNS.map((c, i) => `$${i + 2}::${typeOf(c)}`),
);

/** Writes an event as the last step of the transaction on `client` (see above). */
export async function recordEvent(
  client: Client,
  event: NewEvent,
  audit: Audit,
  place: { tenantId: number; branchId: number },
): Promise<void> {
  const row = eventRow(event, audit, place);
  await query(client, RECORD, [place.tenantId, ...EVENT_COLUMNS.map((c) => row[c])]);
  commitBeforeFlush(client);
}

/** A value of an event's row as an SQL literal (pg's escaping: E'' where a backslash needs it). */
function literal(column: string, value: string | number | null): string {
  if (value === null) return 'NULL';
  if (typeOf(column) === 'bigint') {
    if (!Number.isSafeInteger(value)) throw new Error(`events.${column}: not an integer: ${value}`);
    return `${value}::bigint`;
  }
  return `${pg.escapeLiteral(String(value))}::text`;
}

/**
 * As `recordEvent`, for a write whose event is its last statement (users, media): the lock, the
 * row and the COMMIT reach the server in one message (db.ts `sendWithCommit`), so each write
 * holds the tenant's numbering lock for the server's insert and commit record only. Sent as its own
 * statement, the lock was also held over the answer's way back to serve, serve's event loop
 * and the COMMIT's way there: under load most of the time every other write of the tenant
 * waited (writes with events were 0.6× those without; bench/README.md).
 */
export function recordEventAtCommit(
  client: Client,
  event: NewEvent,
  audit: Audit,
  place: { tenantId: number; branchId: number },
): void {
  const row = eventRow(event, audit, place);
  if (!Number.isSafeInteger(place.tenantId)) throw new Error(`not a tenant id: ${place.tenantId}`);
  sendWithCommit(
    client,
    recordSql(
      `${place.tenantId}::integer`,
      EVENT_COLUMNS.map((c) => literal(c, row[c])),
    ),
  );
  commitBeforeFlush(client);
}

/** The tenant of a branch, for events of writes that know only the branch (tokens). */
export async function placeOf(client: Queryable, branchId: number) {
  const { rows } = await query<{ tenant_id: number }>(
    client,
    'SELECT tenant_id FROM branches WHERE id = $1',
    [branchId],
  );
  return { tenantId: rows[0]!.tenant_id, branchId };
}

/**
 * A page of a branch's events in sequence order, on `db` (the pool, or a transaction's client:
 * the webhook fan-out reads the log as a follower does, inside its own transaction).
 */
export async function listEvents(db: Queryable, f: EventFilter): Promise<EventPage> {
  const where = ['branch_id = $1'];
  const values: unknown[] = [f.branchId];
  const add = (condition: (n: string) => string, value: unknown) => {
    values.push(value);
    where.push(condition(`$${values.length}`));
  };
  if (f.types) add((n) => `type = ANY(${n})`, f.types);
  if (f.targetId !== undefined) add((n) => `target_id = ${n}`, f.targetId);
  if (f.run !== undefined) add((n) => `run = ${n}`, f.run);
  if (f.since !== undefined) add((n) => `occurred_at >= ${n}`, f.since);
  if (f.until !== undefined) add((n) => `occurred_at < ${n}`, f.until);
  const { floor, ceiling } = sequenceEdges(f);
  if (floor !== undefined) {
    add(
      (n) => `sequence > coalesce((SELECT sequence FROM events WHERE occurred_at < ${n}
        ORDER BY occurred_at DESC LIMIT 1), 0)`,
      floor,
    );
  }
  if (ceiling !== undefined) {
    add(
      (n) => `sequence < coalesce((SELECT sequence FROM events WHERE occurred_at >= ${n}
        ORDER BY occurred_at LIMIT 1), 9223372036854775807)`,
      ceiling,
    );
  }
  if (f.afterSequence !== undefined) {
    add((n) => `sequence ${f.newestFirst ? '<' : '>'} ${n}`, f.afterSequence);
  }
  values.push(f.limit + 1);
  const { rows } = await query<EventRow>(
    db,
    `SELECT * FROM events WHERE ${where.join(' AND ')}
     ORDER BY sequence ${f.newestFirst ? 'DESC' : 'ASC'} LIMIT $${values.length}`,
    values,
  );
  return { rows: rows.slice(0, f.limit).map(eventOf), more: rows.length > f.limit };
}

export function eventsRepo(pool: Pool, notifier: Notifier): EventsRepo {
  return {
    async list(f) {
      const page = await listEvents(pool, f);
      // What it lists may be committed but not yet flushed (db.ts commitBeforeFlush): a crash
      // could still take it back, and its sequence would then be handed out again.
      if (page.rows.length > 0) await durable(pool);
      return page;
    },
    async prune(before, limit) {
      const { rowCount } = await query(
        pool,
        `DELETE FROM events WHERE sequence IN
           (SELECT sequence FROM events WHERE occurred_at < $1 ORDER BY occurred_at LIMIT $2)`,
        [before, limit],
      );
      return rowCount ?? 0;
    },
    subscribe: (listener) => notifier.subscribe(listener),
  };
}
