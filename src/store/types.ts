/** The store's types at its boundary: what every backend takes and gives back. */

import type {
  EventActor,
  Channel as EventChannel,
  EventTarget,
  EventType,
  FieldChange,
  RosterEvent,
} from '../contract/events.js';
import type { Channel, Scope } from '../contract/scopes.js';
import type {
  ListableStatus,
  ProfileField,
  Role,
  SortKey,
  UserRecord,
  UserStatus,
} from '../contract/user.js';
import {
  customFields,
  type FieldColumn,
  isProfileField,
  type NormColumn,
  STORED_FIELDS,
} from '../contract/user-fields.js';

export const DEFAULT_TENANT = '*';
export const ROOT_BRANCH = 'main';

export interface Tenant {
  id: number;
  host: string;
  createdAt: string;
  /** Origin (and path prefix) of every absolute URL this tenant's answers carry, when set. */
  publicUrl: string | null;
  /** Storage quota for media in bytes; null: the server's default. */
  quotaBytes: number | null;
  /** Whether users created through SCIM get an invitation mail (default: no). */
  scimInvitations: boolean;
}
export interface Branch {
  id: number;
  tenantId: number;
  name: string;
  createdAt: string;
}

export interface Token {
  id: string;
  branchId: number;
  name: string;
  scopes: Scope[];
  /** Where it works (contract/scopes.ts); tokens made before channels existed have both. */
  channels: Channel[];
  createdAt: string;
  revokedAt: string | null;
}

/** Who a request is: the tenant of its Host, and its token's branch within it. */
export interface Credentials {
  tenant: Tenant;
  branch: Branch;
  token: Token;
}

/** The columns of a user that are not a field of the user-field table's: the service's own. */
interface ServiceColumns {
  status: UserStatus;
  secret_hash: string | null;
  recovery_hash: string | null;
  recovery_expires: number | null;
  gender: string | null;
  avatar: string | null;
  custom: string;
  updated_at: string;
  activated_at: string | null;
  /** Counts the user's writes: 1 on create, one more on each update (SCIM's and REST's ETag). */
  version: number;
}

/**
 * The columns a write may set, by name; the service decides the values. A field's column (and
 * its compared form's) comes from its row in the user-field table.
 */
export type UserColumns = ServiceColumns & { role: Role | null } & Record<
    Exclude<FieldColumn, 'role'> | NormColumn,
    string | null
  >;

export type UserRow = UserColumns & {
  rowid: number;
  id: string;
  tenant_id: number;
  branch_id: number;
  created_at: string;
};

export const PROFILE_COLUMNS = Object.fromEntries(
  STORED_FIELDS.filter(isProfileField).map((f) => [f.name, f.column]),
) as Record<ProfileField, FieldColumn>;

export interface ListFilter {
  branchId: number;
  statuses: ListableStatus[];
  query?: string;
  sort: { key: SortKey; dir: 'ASC' | 'DESC' }[];
  limit: number;
  offset: number;
  /** Keyset paging: the page starts after this position (then `offset` is 0). */
  after?: ListPosition;
  /**
   * A search's total is counted exactly up to this many matches, and above it answered as this
   * number with `totalExact: false` (counting every match of a one-letter query at 1,000,000
   * users reads a third of them). Unset: always exact. Lists without a query are always exact.
   */
  countUpTo?: number;
}

/** A page of users; `totalExact: false` when `total` is only a lower bound (see countUpTo). */
export interface UserPage {
  total: number;
  totalExact?: false;
  rows: UserView[];
  /** The position of the page's last row when more follow. */
  next?: ListPosition;
}

/**
 * Where a row stands in a list's order: its sort keys' values (as stored, before any folding;
 * email's is its compared form), then its status and rowid, the order's tie-breaks.
 */
export interface ListPosition {
  keys: (string | null)[];
  status: string;
  rowid: number;
}

/** Every field column of a user and its compared forms, in table order. */
export const FIELD_COLUMNS: readonly (FieldColumn | NormColumn)[] = STORED_FIELDS.flatMap((f) =>
  f.norm ? [f.column, f.norm] : [f.column],
);

/** Every stored column of a user row (the sort keys and search entries stay inside a backend). */
export const USER_ROW_COLUMNS: readonly (keyof UserRow)[] = [
  'rowid',
  'id',
  'tenant_id',
  'branch_id',
  'status',
  ...FIELD_COLUMNS,
  'secret_hash',
  'recovery_hash',
  'recovery_expires',
  'gender',
  'avatar',
  'custom',
  'created_at',
  'updated_at',
  'activated_at',
  'version',
];

type ViewColumn =
  | 'id'
  | 'status'
  | 'created_at'
  | 'updated_at'
  | 'activated_at'
  | 'version'
  | 'gender'
  | 'avatar'
  | 'custom'
  | FieldColumn;

/**
 * The columns a representation reads (`toRecord`): a read that only answers selects these, not
 * the norms, hashes and keys a write needs. Each column read is a string or number built per
 * row, so the narrower read is measurably cheaper on the hottest path (GET by id).
 */
export const VIEW_COLUMNS: readonly ViewColumn[] = [
  'id',
  'status',
  'created_at',
  'updated_at',
  'activated_at',
  'version',
  ...STORED_FIELDS.map((f) => f.column),
  'gender',
  'avatar',
  'custom',
];

/** A user as a read for an answer gives it (see VIEW_COLUMNS); a full `UserRow` is one too. */
export type UserView = Pick<UserRow, ViewColumn>;

const IDENTIFIER = /^[a-z][a-z_]*$|^[a-z][A-Za-z]*$/;

/**
 * A function made once from the user-field table: an object literal is built in one step by V8,
 * while a loop over the columns builds a dictionary key by key, many times slower per row
 * (bench/README.md, "Figures from src/ comments"), and this runs for every user read and
 * answered. Only names from the table reach the source, each checked to be a plain identifier.
 */
function compiled<T>(param: string, body: string, names: readonly string[]): (arg: never) => T {
  for (const n of names) if (!IDENTIFIER.test(n)) throw new Error(`not a plain identifier: ${n}`);
  return new Function(param, `return ${body};`) as (arg: never) => T;
}

/** A view from its values in VIEW_COLUMNS order (a raw row). */
export const viewOf = compiled<UserView>(
  'v',
  `{ ${VIEW_COLUMNS.map((c, i) => `${c}: v[${i}]`).join(', ')} }`,
  VIEW_COLUMNS,
) as (values: unknown[]) => UserView;

const topFields = STORED_FIELDS.filter((f) => !isProfileField(f));
const profileFields = STORED_FIELDS.filter(isProfileField);

const recordOf = compiled<UserRecord>(
  'r',
  `{
    id: r.id,
    status: r.status,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    activatedAt: r.activated_at,
    version: r.version,
    ${topFields.map((f) => `${f.name}: r.${f.column}`).join(',\n    ')},
    gender: r.gender,
    profile: { ${profileFields.map((f) => `${f.name}: r.${f.column}`).join(', ')} },
    avatar: r.avatar === null ? null : JSON.parse(r.avatar),
    custom: JSON.parse(r.custom),
  }`,
  [...STORED_FIELDS.map((f) => f.name), ...STORED_FIELDS.map((f) => f.column)],
) as (view: UserView) => UserRecord;

/**
 * The record a view holds: its field columns where the user-field table puts them, and the
 * custom fields no named field has taken (contract/user-fields.ts customFields).
 */
export function toRecord(view: UserView): UserRecord {
  const record = recordOf(view);
  record.custom = customFields(record.custom);
  return record;
}

export type NewUserRow = Omit<UserRow, 'rowid'>;

/** A new, pending user with every field empty: what the service fills in. */
export function emptyUserRow(
  at: Pick<NewUserRow, 'id' | 'tenant_id' | 'branch_id' | 'created_at'>,
): NewUserRow {
  return {
    ...at,
    status: 'pending',
    ...(Object.fromEntries(FIELD_COLUMNS.map((c) => [c, null])) as Record<
      FieldColumn | NormColumn,
      null
    >),
    secret_hash: null,
    recovery_hash: null,
    recovery_expires: null,
    gender: null,
    avatar: null,
    custom: '{}',
    updated_at: at.created_at,
    activated_at: null,
    version: 1,
  };
}

export interface MediumRow {
  rowid: number;
  id: string;
  tenant_id: number;
  branch_id: number;
  owner_id: string;
  file_name: string;
  blob_key: string;
  type: string;
  format: string;
  mime_type: string;
  bytes: number;
  width: number | null;
  height: number | null;
  duration: number | null;
  preview_key: string | null;
  preview_format: string | null;
  preview_mime_type: string | null;
  preview_bytes: number | null;
  preview_width: number | null;
  preview_height: number | null;
  created_at: string;
}

export type NewMediumRow = Omit<MediumRow, 'rowid'>;

/** A row with the names its public path is made of. */
export interface PlacedMediumRow extends MediumRow {
  tenant_host: string;
  branch_name: string;
}

export type MediumKeys = Pick<MediumRow, 'rowid' | 'id' | 'blob_key' | 'preview_key'>;

export const MEDIUM_COLUMNS = [
  'id',
  'tenant_id',
  'branch_id',
  'owner_id',
  'file_name',
  'blob_key',
  'type',
  'format',
  'mime_type',
  'bytes',
  'width',
  'height',
  'duration',
  'preview_key',
  'preview_format',
  'preview_mime_type',
  'preview_bytes',
  'preview_width',
  'preview_height',
  'created_at',
] as const satisfies readonly (keyof NewMediumRow)[];

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

/**
 * Who makes a write, through which channel, for which request: every write that changes users,
 * media or tokens takes one (required, so no caller can forget it) and records its event from
 * it in the write's own transaction (docs/architecture.md, "One write path").
 */
export interface Audit {
  actor: EventActor;
  channel: EventChannel;
  requestId: string;
  /** The import or avatar sync run the request belongs to (header Roster-Run-Id). */
  run?: string;
}

/** An event as a write composes it; the store gives it its id, sequence and time. */
export interface NewEvent {
  type: EventType;
  target: EventTarget;
  changes?: Record<string, FieldChange>;
}

export interface EventFilter {
  branchId: number;
  /** Only events of these types; absent: every type. */
  types?: EventType[];
  targetId?: string;
  run?: string;
  /** ISO times: occurredAt ≥ since, < until. */
  since?: string;
  until?: string;
  /** Only events with a greater sequence (a cursor's position). */
  afterSequence?: number;
  limit: number;
  /** Newest first (a person's history) instead of the log's order, oldest first. */
  newestFirst?: boolean;
}

export interface EventPage {
  rows: RosterEvent[];
  /** Whether more events match after the page's last. */
  more: boolean;
}
