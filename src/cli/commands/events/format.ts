/** How events print: a table's columns, and the one line per change `events tail` prints. */
import type { FieldChange, RosterEvent } from '../../../contract/events.js';
import { parseIsoTime } from '../../../contract/iso-time.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { usageError } from '../../errors.js';
import { type Column, resolveFormat, viewOf } from '../../output/render.js';
import { safeText } from '../../output/text-safe.js';

const value = (v: unknown) =>
  v === null || v === undefined ? '∅' : typeof v === 'string' ? v : JSON.stringify(v);

/** `profile.department: Ops → Sales`, one per changed field. */
export const changeLines = (changes: Record<string, FieldChange> | undefined): string[] =>
  Object.entries(changes ?? {}).map(([f, c]) => `${f}: ${value(c.from)} → ${value(c.to)}`);

/** Who a target is for a person: its email, else its externalId, else its id. */
export const targetName = (e: RosterEvent) => e.target.email ?? e.target.externalId ?? e.target.id;

export const actorName = (e: RosterEvent) =>
  `${e.actor.name ?? e.actor.id ?? e.actor.type}/${e.channel}`;

const time = (iso: string) => iso.replace('T', ' ').slice(0, 19);

export const EVENT_COLUMNS: Column<RosterEvent>[] = [
  { header: 'time', path: 'occurredAt', value: (e) => time(e.occurredAt) },
  { header: 'type', path: 'type', value: (e) => e.type },
  { header: 'target', keep: 2, value: targetName },
  { header: 'by', keep: 1, value: actorName },
  { header: 'changes', keep: 1, value: (e) => changeLines(e.changes).join('; ') },
];

export function eventView(globals: GlobalOptions, deps: Deps) {
  const format = resolveFormat(globals.output, deps.io);
  return viewOf(format, EVENT_COLUMNS);
}

/**
 * `events tail`'s lines: the event's head (time, type, target, who), then one indented line per
 * changed field, each kept within `width` columns.
 */
export function tailLines(e: RosterEvent, width = 80): string[] {
  // What a writer stored (a name, a webhook's description) is data: escaped, it can neither
  // colour nor move the follower's terminal, nor make a line that looks like another event.
  const clip = (line: string) => {
    const s = safeText(line);
    return s.length > width ? `${s.slice(0, width - 1)}…` : s;
  };
  const head = `${e.occurredAt.slice(11, 19)} ${e.type} ${targetName(e)} (${actorName(e)})`;
  return [clip(head), ...changeLines(e.changes).map((l) => clip(`  ${l}`))];
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `--since 2h` (s, m, h, d before now) or an ISO time, as the ISO time the service takes. */
export function parseWhen(flag: string, given: string, now = Date.now()): string {
  const rel = /^(\d{1,6})([smhd])$/.exec(given);
  if (rel) return new Date(now - Number(rel[1]) * UNITS[rel[2]!]! * 1000).toISOString();
  // `2026-12-06 21:00` as a person types it is the API's `2026-12-06T21:00`.
  const at = parseIsoTime(given.replace(/^(\d{4}-\d{2}-\d{2}) (?=\d)/, '$1T'));
  if (at === undefined) {
    throw usageError(
      `${flag} takes a time before now (30m, 2h, 7d) or an ISO time (2026-12-06T21:00:00Z), got '${given}'`,
    );
  }
  return at;
}
