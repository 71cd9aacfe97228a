/**
 * The event log's contract (CONTRACT.md, "Events, audit log and webhooks"): the types, the
 * shape `GET /api/events` answers, and the rules both ends share (a `type=` filter's words, a
 * run id). The store writes events, the server lists them, the CLI prints them: all from here.
 */
import { randomBytes } from 'node:crypto';

export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.activated',
  'user.deactivated',
  'user.deleted',
  'medium.created',
  'medium.deleted',
  'token.created',
  'token.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export type ActorType = 'token' | 'system';
export type Channel = 'api' | 'scim' | 'system';
export type TargetType = 'user' | 'medium' | 'token' | 'webhook';

export interface EventActor {
  type: ActorType;
  /** The token's id (never its value), or the system part that wrote. */
  id?: string;
  name?: string;
}

export interface EventTarget {
  type: TargetType;
  id: string;
  externalId?: string;
  email?: string;
}

/** One field's change; a secret's is `[redacted]` both ways. */
export interface FieldChange {
  from: unknown;
  to: unknown;
}

export interface RosterEvent {
  id: string;
  sequence: number;
  type: EventType;
  occurredAt: string;
  actor: EventActor;
  channel: Channel;
  requestId: string;
  run?: string;
  target: EventTarget;
  changes?: Record<string, FieldChange>;
}

/** What stands for a secret's value, before and after, in `changes`. */
export const REDACTED = '[redacted]';

export const isEventType = (s: string): s is EventType =>
  (EVENT_TYPES as readonly string[]).includes(s);

/**
 * The types one word of a `type=` filter names: a type, or a family (`user.*`); undefined when
 * it names none (the server answers 400 naming it).
 */
export function typesNamedBy(word: string): EventType[] | undefined {
  if (isEventType(word)) return [word];
  const family = /^([a-z]+)\.\*$/.exec(word)?.[1];
  const types = family ? EVENT_TYPES.filter((t) => t.startsWith(`${family}.`)) : [];
  return types.length > 0 ? types : undefined;
}

/** The header a client names its run by (an import, an avatar sync). */
export const RUN_ID_HEADER = 'Roster-Run-Id';
/** A run id: a short token of safe characters (it goes into answers, logs and filters). */
export const RUN_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** How long a long poll (`wait=`) may hold, in seconds. */
export const MAX_WAIT_SECONDS = 60;
/**
 * `after=end`: the log's end, as a cursor. Its page holds what came after it (nothing, unless
 * a write raced it) and its `next` is a cursor at that end, so a follower starts from now in
 * one request instead of paging the whole log to find where it stops. An addition to the
 * contract, as `run=` is.
 */
export const AFTER_END = 'end';
export const MAX_EVENTS_LIMIT = 1000;
export const DEFAULT_EVENTS_LIMIT = 100;
/** Days events are kept unless `serve --events-retention` says otherwise. */
export const DEFAULT_RETENTION_DAYS = 90;

/** A fresh run id: when the run started (sortable) and a random part. */
export function newRunId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `run-${stamp}-${randomBytes(4).toString('hex')}`;
}
