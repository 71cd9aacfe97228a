/** The events table's row, on both backends, and the event it holds. */
import type { EventType, RosterEvent, TargetType } from '../../contract/events.js';
import { isoTimeOf } from '../../contract/iso-time.js';
import { newObjectId } from '../ids.js';
import type { Audit, NewEvent } from '../types.js';

export interface EventRow {
  id: string;
  sequence?: number;
  tenant_id: number;
  branch_id: number;
  type: string;
  occurred_at: string;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  channel: string;
  request_id: string;
  run: string | null;
  target_type: string;
  target_id: string;
  target_external_id: string | null;
  target_email: string | null;
  changes: string | null;
}

/**
 * Every column but the sequence, which the database gives (last, see the backends). In this
 * order PostgreSQL's roster_record_event takes them (its migration 14): a change here needs a
 * migration that replaces that function (test/store/migrations-schema.test.ts).
 */
export const EVENT_COLUMNS = [
  'id',
  'tenant_id',
  'branch_id',
  'type',
  'occurred_at',
  'actor_type',
  'actor_id',
  'actor_name',
  'channel',
  'request_id',
  'run',
  'target_type',
  'target_id',
  'target_external_id',
  'target_email',
  'changes',
] as const satisfies readonly (keyof EventRow)[];

/**
 * How far an event's time may lag behind that of an event before it in sequence order: the
 * clock is read inside the write's transaction, so two writes' times are out of sequence order
 * by at most a transaction's length, or by the wall clock stepping back. Five minutes covers
 * both with room to spare.
 */
export const EVENT_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Where a `since=`/`until=` page may start and stop in sequence order. The log is read in
 * sequence order, and a time filter alone would walk it from the beginning (or to the end)
 * rejecting row after row: half a second at 1M events (bench/events.bench.mjs). Any event timed
 * before `since` minus the skew was written before every event the window holds, and any timed
 * after `until` plus the skew after them, so their sequences bound the read; the time filter
 * still decides, so an event a little out of order is never lost. The backends look up those
 * sequences by the time index: `floor` is the latest time before which an event's sequence is
 * a lower bound, `ceiling` the earliest after which one is an upper bound.
 */
export function sequenceEdges(f: { since?: string; until?: string }) {
  // Shifted past year 9999 or before year 0: no edge there (the filter alone decides).
  const shifted = (iso: string, ms: number) => isoTimeOf(Date.parse(iso) + ms);
  return {
    floor: f.since === undefined ? undefined : shifted(f.since, -EVENT_CLOCK_SKEW_MS),
    ceiling: f.until === undefined ? undefined : shifted(f.until, EVENT_CLOCK_SKEW_MS),
  };
}

/** The row of an event a write made in `branch` (of `tenant`) for `audit`. */
export function eventRow(
  event: NewEvent,
  audit: Audit,
  place: { tenantId: number; branchId: number },
  now = Date.now(),
): EventRow {
  return {
    id: newObjectId(now),
    tenant_id: place.tenantId,
    branch_id: place.branchId,
    type: event.type,
    occurred_at: new Date(now).toISOString(),
    actor_type: audit.actor.type,
    actor_id: audit.actor.id ?? null,
    actor_name: audit.actor.name ?? null,
    channel: audit.channel,
    request_id: audit.requestId,
    run: audit.run ?? null,
    target_type: event.target.type,
    target_id: event.target.id,
    target_external_id: event.target.externalId ?? null,
    target_email: event.target.email ?? null,
    changes:
      event.changes && Object.keys(event.changes).length > 0 ? JSON.stringify(event.changes) : null,
  };
}

/** The event a stored row holds, as `GET /api/events` answers it. */
export function eventOf(r: EventRow): RosterEvent {
  return {
    id: r.id,
    sequence: Number(r.sequence),
    type: r.type as EventType,
    occurredAt: r.occurred_at,
    actor: {
      type: r.actor_type as RosterEvent['actor']['type'],
      ...(r.actor_id !== null ? { id: r.actor_id } : {}),
      ...(r.actor_name !== null ? { name: r.actor_name } : {}),
    },
    channel: r.channel as RosterEvent['channel'],
    requestId: r.request_id,
    ...(r.run !== null ? { run: r.run } : {}),
    target: {
      type: r.target_type as TargetType,
      id: r.target_id,
      ...(r.target_external_id !== null ? { externalId: r.target_external_id } : {}),
      ...(r.target_email !== null ? { email: r.target_email } : {}),
    },
    ...(r.changes !== null ? { changes: JSON.parse(r.changes) } : {}),
  };
}

/** The system's own writes (serve's start-up, local admin commands, the media sweep). */
export const systemAudit = (name: string, requestId = `system-${newObjectId()}`): Audit => ({
  actor: { type: 'system', name },
  channel: 'system',
  requestId,
});
