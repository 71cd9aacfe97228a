/**
 * One row of a plan as programs read it (a dry run's `-o json|ndjson|csv` and its `--report`):
 * what happens to the row, and every field it changes with the value before and after. A new
 * user's fields change from nothing; secrets never leave the file (`***`).
 */
import { CREATE_ONLY } from './columns.js';
import type { Entry } from './plan.js';
import type { KnownUser } from './snapshot.js';
import { valuesOf } from './snapshot.js';
import type { Action, MatchField } from './types.js';

export type FieldChange = { from: string | null; to: string | null };

export interface PlannedRow {
  line?: number;
  key?: string;
  action: Action;
  id?: string;
  changes?: Record<string, FieldChange>;
  error?: string;
}

export function plannedRow(e: Entry): PlannedRow {
  const row: PlannedRow = { line: e.line, key: e.key, action: e.action };
  if (e.id) row.id = e.id;
  if (e.action === 'create' && e.values) {
    row.changes = {};
    for (const [field, value] of Object.entries(e.values)) {
      if (value === null) continue;
      row.changes[field] = { from: null, to: CREATE_ONLY.has(field) ? '***' : value };
    }
  } else if (e.changes?.length) {
    row.changes = Object.fromEntries(e.changes.map((c) => [c.field, { from: c.from, to: c.to }]));
  } else if (e.action === 'deactivate') {
    row.changes = { status: { from: e.was ?? null, to: 'deactivated' } };
  }
  if (e.error) row.error = e.error;
  return row;
}

/** A `--sync` deactivation of a user the file does not list. */
export function plannedDeactivation(u: KnownUser, match: MatchField): PlannedRow {
  const key = valuesOf(u)[match] ?? undefined;
  return {
    ...(key ? { key } : {}),
    action: 'deactivate',
    id: u.id,
    changes: { status: { from: u.status, to: 'deactivated' } },
  };
}

/** The changes as one line for a person: `firstName: Robert → Bob; department: (empty) → IT`. */
export const changesText = (changes: PlannedRow['changes']) =>
  Object.entries(changes ?? {})
    .map(([f, c]) => `${f}: ${c.from ?? '(empty)'} → ${c.to ?? '(empty)'}`)
    .join('; ');
