/**
 * What a write changed, as its event says it: the field paths of the user-field table (a v3
 * body's: `email`, `profile.department`, `config.locale`) with `{from, to}`, secrets redacted.
 * Computed by the repository, which holds the row before and after inside the write's own
 * transaction: no caller can describe a change other than the one written.
 */
import { type EventType, type FieldChange, REDACTED } from '../../contract/events.js';
import { STORED_FIELDS } from '../../contract/user-fields.js';
import type { MediumRow, NewEvent, NewUserRow, Token } from '../types.js';

type UserState = Pick<
  NewUserRow,
  'id' | 'status' | 'external_id' | 'email' | 'secret_hash' | 'recovery_hash'
> &
  Partial<NewUserRow>;

// The columns of the table's fields, by the path a change names them with.
const FIELDS = STORED_FIELDS.map((f) => [f.body, f.column] as const);
// The service's own columns an event shows; a secret's by its field's name, redacted.
const SERVICE: readonly (readonly [string, keyof NewUserRow])[] = [
  ['status', 'status'],
  ['gender', 'gender'],
];
const SECRETS: readonly (readonly [string, keyof NewUserRow])[] = [
  ['secret', 'secret_hash'],
  ['recoveryCode', 'recovery_hash'],
];

const parse = (json: string | null | undefined): unknown =>
  json === null || json === undefined ? null : JSON.parse(json);

/** `{path: {from, to}}` of each field that differs between `before` and `after`. */
export function userChanges(
  before: Partial<NewUserRow> | undefined,
  after: Partial<NewUserRow>,
): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  const compare = (path: string, from: unknown, to: unknown) => {
    if (from !== to) changes[path] = { from, to };
  };
  for (const [path, column] of [...FIELDS, ...SERVICE]) {
    compare(path, before?.[column] ?? null, after[column] ?? null);
  }
  for (const [path, column] of SECRETS) {
    if ((before?.[column] ?? null) !== (after[column] ?? null)) {
      changes[path] = { from: REDACTED, to: REDACTED };
    }
  }
  if ((before?.avatar ?? null) !== (after.avatar ?? null)) {
    changes['profile.avatar'] = { from: parse(before?.avatar), to: parse(after.avatar) };
  }
  const customBefore = (parse(before?.custom) ?? {}) as Record<string, unknown>;
  const customAfter = (parse(after.custom) ?? {}) as Record<string, unknown>;
  for (const key of new Set([...Object.keys(customBefore), ...Object.keys(customAfter)])) {
    const from = customBefore[key] ?? null;
    const to = customAfter[key] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[`custom.${key}`] = { from, to };
  }
  return changes;
}

/** Which user event a status change is: a pending user withdrawn is `user.deleted` too. */
function userType(before: UserState | undefined, after: UserState): EventType {
  if (!before) return 'user.created';
  if (before.status === after.status) return 'user.updated';
  if (after.status === 'deleted') return 'user.deleted';
  if (after.status === 'activated') return 'user.activated';
  if (after.status === 'deactivated') return 'user.deactivated';
  return 'user.updated';
}

const userTarget = (row: UserState) => ({
  type: 'user' as const,
  id: row.id,
  ...(row.external_id ? { externalId: row.external_id } : {}),
  ...(row.email ? { email: row.email } : {}),
});

/** The event of a user's insert (no `before`) or update; undefined when nothing changed. */
export function userEvent(
  before: UserState | undefined,
  after: UserState & Partial<NewUserRow>,
): NewEvent | undefined {
  const changes = userChanges(before, after);
  if (before && Object.keys(changes).length === 0) return undefined;
  return { type: userType(before, after), target: userTarget(after), changes };
}

/** A field of something made (`from` nothing) or removed (`to` nothing). */
const lifeChange = (created: boolean) => (v: unknown) =>
  created ? { from: null, to: v } : { from: v, to: null };

export function mediumEvent(type: 'medium.created' | 'medium.deleted', row: MediumRow): NewEvent {
  const value = lifeChange(type === 'medium.created');
  return {
    type,
    target: { type: 'medium', id: row.id },
    changes: {
      fileName: value(row.file_name),
      owner: value(row.owner_id),
      bytes: value(row.bytes),
    },
  };
}

/** A token's event: its name and scopes; its value never (it is not even stored). */
export function tokenEvent(
  type: 'token.created' | 'token.deleted',
  token: Pick<Token, 'id' | 'name' | 'scopes'>,
): NewEvent {
  const created = type === 'token.created';
  const value = lifeChange(created);
  return {
    type,
    target: { type: 'token', id: token.id },
    changes: {
      name: value(token.name),
      scopes: value(token.scopes),
      ...(created ? { secret: { from: REDACTED, to: REDACTED } } : {}),
    },
  };
}
