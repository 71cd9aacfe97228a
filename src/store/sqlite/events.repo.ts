/**
 * The event log in SQLite. `record` runs inside the transaction of the write it describes (the
 * users, media and tokens repositories call it), so the change and its event commit together.
 * SQLite has one writer at a time: sequences are given in commit order, and a reader never sees
 * a later sequence before an earlier one.
 */
import {
  EVENT_COLUMNS,
  type EventRow,
  eventOf,
  eventRow,
  sequenceEdges,
} from '../common/event-rows.js';
import type { Notifier } from '../common/notifier.js';
import type { Audit, EventFilter, EventPage, NewEvent } from '../types.js';
import type { Db } from './db.js';
import { eventTargetsSweep } from './event-targets.js';

export function eventsRepo(db: Db, notifier: Notifier) {
  const insert = db.prepare(
    `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES (${EVENT_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  const tenantOf = db.prepare<[number]>('SELECT tenant_id FROM branches WHERE id = ?').pluck();
  const prune = db.prepare<[string, number]>(
    `DELETE FROM events WHERE sequence IN
       (SELECT sequence FROM events WHERE occurred_at < ? ORDER BY occurred_at LIMIT ?)`,
  );
  const statements = new Map<string, ReturnType<Db['prepare']>>();
  const cached = (sql: string) => {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  };

  return {
    /** Writes an event; call inside the transaction of the change it records. */
    record(event: NewEvent, audit: Audit, place: { tenantId: number; branchId: number }): void {
      insert.run(eventRow(event, audit, place));
      // After the synchronous transaction around this call has committed.
      queueMicrotask(() => notifier.notify());
    },
    /** The tenant of a branch, for events of writes that know only the branch (tokens). */
    placeOf(branchId: number) {
      return { tenantId: tenantOf.get(branchId) as number, branchId };
    },
    list(f: EventFilter): EventPage {
      // A target's events from event_targets in its order, each joined to its event: an entry
      // whose event was pruned (not yet swept) joins none. The table's own columns qualified.
      const t = f.targetId === undefined ? '' : 't.';
      const where = [`${t}branch_id = @branchId`];
      const params: Record<string, unknown> = { branchId: f.branchId, limit: f.limit + 1 };
      if (f.types) {
        where.push(`type IN (${f.types.map((_, i) => `@t${i}`).join(', ')})`);
        f.types.forEach((t, i) => {
          params[`t${i}`] = t;
        });
      }
      const { floor, ceiling } = sequenceEdges(f);
      // `+occurred_at`: the time index only finds the edges; the page is read in sequence order.
      const optional = [
        [
          't.target_id = @targetId AND events.target_id = @targetId AND events.branch_id = @branchId',
          'targetId',
          f.targetId,
        ],
        ['run = @run', 'run', f.run],
        ['+occurred_at >= @since', 'since', f.since],
        ['+occurred_at < @until', 'until', f.until],
        [
          `${t}sequence > coalesce((SELECT sequence FROM events WHERE occurred_at < @floor
             ORDER BY occurred_at DESC LIMIT 1), 0)`,
          'floor',
          floor,
        ],
        [
          `${t}sequence < coalesce((SELECT sequence FROM events WHERE occurred_at >= @ceiling
             ORDER BY occurred_at LIMIT 1), 9223372036854775807)`,
          'ceiling',
          ceiling,
        ],
        [`${t}sequence ${f.newestFirst ? '<' : '>'} @after`, 'after', f.afterSequence],
      ] as const;
      for (const [condition, name, value] of optional) {
        if (value === undefined) continue;
        where.push(condition);
        params[name] = value;
      }
      // CROSS JOIN: event_targets first, in its order, so the page needs no sort.
      const from = t
        ? 'event_targets AS t CROSS JOIN events ON events.sequence = t.sequence'
        : 'events';
      const sql = `SELECT events.* FROM ${from} WHERE ${where.join(' AND ')}
        ORDER BY ${t}sequence ${f.newestFirst ? 'DESC' : 'ASC'} LIMIT @limit`;
      const rows = cached(sql).all(params) as EventRow[];
      return { rows: rows.slice(0, f.limit).map(eventOf), more: rows.length > f.limit };
    },
    /** Deletes at most `limit` events older than `before` (one short transaction); how many. */
    prune: (before: string, limit: number): number => prune.run(before, limit).changes,
    /** Deletes the keys that pruning left in event_targets, a window at a time. */
    sweepTargets: eventTargetsSweep(db),
    subscribe: (listener: () => void) => notifier.subscribe(listener),
  };
}

export type SqliteEvents = ReturnType<typeof eventsRepo>;
