/**
 * `GET /api/events`'s query: every parameter checked, each refusal naming it. `type` may repeat
 * or be a comma list and names types or families (`user.*`); times are ISO 8601.
 */
import type { ParsedUrlQuery } from 'node:querystring';
import type { FieldIssue } from '../../contract/errors.js';
import {
  DEFAULT_EVENTS_LIMIT,
  EVENT_TYPES,
  type EventType,
  MAX_EVENTS_LIMIT,
  MAX_WAIT_SECONDS,
  RUN_ID,
  typesNamedBy,
} from '../../contract/events.js';
import { parseIsoTime } from '../../contract/iso-time.js';
import { validationError } from '../errors.js';

export interface EventsQuery {
  types?: EventType[];
  target?: string;
  run?: string;
  since?: string;
  until?: string;
  after?: string;
  limit: number;
  wait: number;
}

const KNOWN = new Set(['type', 'target', 'run', 'since', 'until', 'after', 'limit', 'wait']);

export function parseEventsQuery(query: ParsedUrlQuery): EventsQuery {
  const issues: FieldIssue[] = [];
  const one = (field: string): string | undefined => {
    const v = query[field];
    if (Array.isArray(v)) {
      issues.push({ field, message: 'is given more than once' });
      return undefined;
    }
    return v;
  };
  for (const field of Object.keys(query)) {
    if (!KNOWN.has(field)) issues.push({ field, message: 'is not a known parameter' });
  }
  let types: EventType[] | undefined;
  const given = query.type;
  if (given !== undefined) {
    const words = (Array.isArray(given) ? given : [given])
      .flatMap((v) => v.split(','))
      .map((w) => w.trim())
      .filter(Boolean);
    if (words.length === 0) {
      issues.push({
        field: 'type',
        message: 'names no event type (type=user.created, or a family such as user.*)',
      });
    }
    const set = new Set<EventType>();
    for (const word of words) {
      const named = typesNamedBy(word);
      if (named) for (const t of named) set.add(t);
      else
        issues.push({
          field: 'type',
          message: `'${word}' is not an event type (one of ${EVENT_TYPES.join(', ')}, or a family such as user.*)`,
        });
    }
    types = EVENT_TYPES.filter((t) => set.has(t));
  }
  const time = (field: string) => {
    const v = one(field);
    if (v === undefined) return undefined;
    const at = parseIsoTime(v);
    if (at === undefined) {
      issues.push({
        field,
        message: `'${v}' is not an ISO 8601 time from year 0000 to 9999 (2026-12-06T21:00:00Z)`,
      });
    }
    return at;
  };
  const whole = (field: string, min: number, max: number, fallback: number) => {
    const v = one(field);
    if (v === undefined) return fallback;
    const n = /^\d{1,6}$/.test(v) ? Number(v) : Number.NaN;
    if (!(n >= min && n <= max)) {
      issues.push({ field, message: `must be a whole number from ${min} to ${max}` });
    }
    return Number.isNaN(n) ? fallback : Math.min(n, max);
  };
  const target = one('target');
  const run = one('run');
  if (run !== undefined && !RUN_ID.test(run)) {
    issues.push({ field: 'run', message: 'is not a run id (1 to 64 of A-Z a-z 0-9 . _ : -)' });
  }
  const parsed: EventsQuery = {
    types,
    target,
    run,
    since: time('since'),
    until: time('until'),
    after: one('after'),
    limit: whole('limit', 1, MAX_EVENTS_LIMIT, DEFAULT_EVENTS_LIMIT),
    wait: whole('wait', 0, MAX_WAIT_SECONDS, 0),
  };
  if (issues.length > 0) throw validationError(issues, 'query');
  return parsed;
}
