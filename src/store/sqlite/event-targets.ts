/**
 * The sweep of event_targets (migration 19, schema-sql.ts EVENT_TARGETS): pruning deletes
 * events and leaves their keys; the sweep deletes those keys later, a window of the table at a
 * time in its own order, so a window writes the few pages it spans rather than one per pruned
 * event. Stateless: the caller keeps where the next window starts (the pruner, for one round),
 * so a round that failed part-way does not leave the next one starting from the middle.
 */
import type { Db } from './db.js';

/** Where a sweep goes on: the last key it looked at, as the store gave it (opaque). */
export type SweepPosition = string;

/** A key of event_targets: branch, target, sequence. */
type Key = [number, string, number];
const START: Key = [Number.MIN_SAFE_INTEGER, '', 0];

export function eventTargetsSweep(db: Db) {
  const windowEnd = db
    .prepare<[number, string, number, number]>(
      `SELECT branch_id, target_id, sequence FROM event_targets
       WHERE (branch_id, target_id, sequence) > (?, ?, ?)
       ORDER BY branch_id, target_id, sequence LIMIT 1 OFFSET ?`,
    )
    .raw();
  const leftBehind =
    'NOT EXISTS (SELECT 1 FROM events WHERE events.sequence = event_targets.sequence)';
  const sweepWindow = db.prepare(
    `DELETE FROM event_targets WHERE (branch_id, target_id, sequence) > (@b, @t, @s)
     AND (branch_id, target_id, sequence) <= (@b1, @t1, @s1) AND ${leftBehind}`,
  );
  const sweepRest = db.prepare(
    `DELETE FROM event_targets WHERE (branch_id, target_id, sequence) > (@b, @t, @s) AND ${leftBehind}`,
  );
  /**
   * Looks at the `limit` keys after `after` (from the start without it) and deletes those whose
   * event was pruned; where the next window starts, or undefined at the table's end.
   */
  return (limit: number, after?: SweepPosition): SweepPosition | undefined => {
    const [b, t, s] = after === undefined ? START : (JSON.parse(after) as Key);
    const end = windowEnd.get(b, t, s, limit - 1) as Key | undefined;
    if (end === undefined) {
      sweepRest.run({ b, t, s });
      return undefined;
    }
    sweepWindow.run({ b, t, s, b1: end[0], t1: end[1], s1: end[2] });
    return JSON.stringify(end);
  };
}
