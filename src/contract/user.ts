/**
 * User types and the mappings between the canonical record and the three wire shapes:
 * flat (v1, the "earlier flat representation"), v2 (nested, email/userName as strings) and
 * v3 (the current User of the spec). Every representation derives from `UserRecord` here.
 */
import { splitList } from './list.js';
import { setOwn } from './safe-keys.js';
import { PROFILE_FIELDS, type ProfileField } from './user-fields.js';

export const USER_STATUSES = ['activated', 'pending', 'deactivated', 'deleted', 'contact'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** The statuses GET /users accepts as a filter. */
export const LISTABLE_STATUSES = ['activated', 'pending', 'deactivated'] as const;
export type ListableStatus = (typeof LISTABLE_STATUSES)[number];

/**
 * The `status` filter of GET /users (and the CLI's `--status`): one or more listable statuses,
 * comma-separated, read with `splitList`'s tolerance. `all` means every listable status where
 * the caller allows it: the CLI does, the service does not (the interface lists only the three
 * values, and the CLI sends the expanded list, so it works against the real platform too).
 * Undefined when the value names no status or one that is not listable.
 */
export function parseStatusList(
  value: string,
  { all = false }: { all?: boolean } = {},
): ListableStatus[] | undefined {
  if (all && value.trim() === 'all') return [...LISTABLE_STATUSES];
  const parts = splitList(value);
  const listable = LISTABLE_STATUSES as readonly string[];
  if (parts.length === 0 || parts.some((p) => !listable.includes(p))) return undefined;
  return parts as ListableStatus[];
}

export const ROLES = ['admin', 'editor', 'moderator', 'reader', 'restricted'] as const;
export type Role = (typeof ROLES)[number];

/**
 * A role as a person writes it (`--set role=Editor`, `--role`, an import's cell): role names
 * compare without case and are sent as the service names them, lower-case. The one rule for
 * the CLI and the import; the service itself takes its own names only, as the platform does.
 */
export const roleName = (value: string): string => value.toLowerCase();

/**
 * Whether creating a user sends the "sign up" invitation: it has an email to send it to, the
 * caller did not say `sendMail: false`, and it is not created activated: a user given a
 * secret (one-time password) has no sign-up to do. The service, the import's plan and its
 * report count by this one rule.
 */
export const sendsInvitation = (u: {
  email?: string | null;
  secret?: string | null;
  sendMail?: boolean;
}): boolean => u.sendMail !== false && Boolean(u.email) && (u.secret ?? null) === null;

export { PROFILE_FIELDS, type ProfileField } from './user-fields.js';

/** Keys GET /users accepts in `sort`. */
export const SORT_KEYS = [
  'firstName',
  'lastName',
  'createdAt',
  'email',
  'externalId',
  'status',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];
/** The only sort keys the real platform documents: clients that must work there use no other. */
export const PLATFORM_SORT_KEYS = ['firstName', 'lastName'] as const;
export const DEFAULT_SORT = 'lastName_ASC_firstName_ASC';

export type SortOrder = [
  { key: SortKey; dir: 'ASC' | 'DESC' },
  { key: SortKey; dir: 'ASC' | 'DESC' },
];

/**
 * The `sort` of GET /users (and the CLI's `--sort`): two keys with their directions, as
 * `lastName_ASC_firstName_ASC`; else what is wrong with it. Plain code, not a schema: the CLI
 * checks a list's options with it before any request without loading zod (a third of a
 * `users list --sort …`'s start-up).
 */
export function parseSort(value: string): { sort: SortOrder } | { error: string } {
  if (!/^\w*_(ASC|DESC)_\w*_(ASC|DESC)$/.test(value)) {
    return { error: 'must look like lastName_ASC_firstName_ASC' };
  }
  const [k1, d1, k2, d2] = value.split('_') as [string, 'ASC' | 'DESC', string, 'ASC' | 'DESC'];
  for (const k of [k1, k2]) {
    if (!(SORT_KEYS as readonly string[]).includes(k)) {
      return { error: `'${k}' is not one of ${SORT_KEYS.join(', ')}` };
    }
  }
  return {
    sort: [
      { key: k1 as SortKey, dir: d1 },
      { key: k2 as SortKey, dir: d2 },
    ],
  };
}

/** The longest `query` GET /users takes. */
export const MAX_QUERY_LENGTH = 200;

export const EMAIL_SOURCE = 'system';
export const USER_NAME_SOURCE = 'user';

export interface AvatarImage {
  url: string;
  width?: number;
  height?: number;
  size?: number;
  format?: string;
  mimeType?: string;
}
export interface Avatar {
  original?: AvatarImage;
  icon?: AvatarImage;
  thumb?: AvatarImage;
}

/** The canonical user every representation is derived from. */
export interface UserRecord {
  id: string;
  status: UserStatus;
  role: Role | null;
  createdAt: string;
  updatedAt: string;
  activatedAt: string | null;
  /** Counts the user's writes (1 when created): what an ETag is made from. */
  version: number;
  externalId: string | null;
  email: string | null;
  userName: string | null;
  locale: string | null;
  gender: string | null;
  profile: Partial<Record<ProfileField, string | null>>;
  avatar: Avatar | null;
  /** Custom profile fields by their id. */
  custom: Record<string, string>;
}

/** A change to a user, whatever shape it arrived in: absent = unchanged, null = clear. */
export interface UserInput {
  externalId?: string | null;
  email?: string | null;
  userName?: string | null;
  secret?: string;
  recoveryCode?: { plain: string; expires: number | null } | null;
  sendMail?: boolean;
  role?: Role | null;
  locale?: string | null;
  gender?: string | null;
  status?: 'activated' | 'deactivated';
  profile?: Partial<Record<ProfileField, string | null>>;
  avatar?: Avatar | null;
  custom?: Record<string, string | null>;
}

type ProfileOut = Partial<Record<ProfileField, string | null>> & {
  avatar?: Avatar | null;
  [customFieldId: string]: string | Avatar | null | undefined;
};

/** The current representation (media type user.v3). */
export interface UserV3 {
  id: string;
  status: UserStatus;
  role: Role | null;
  createdAt: string;
  activatedAt: string | null;
  externalId: string | null;
  email: { value: string; source: string } | null;
  userName: { value: string; source: string } | null;
  config: { locale: string | null };
  profile: ProfileOut;
}

/** Media type user.v2: v3's nesting with email and userName as plain strings. */
export interface UserV2 extends Omit<UserV3, 'email' | 'userName'> {
  email: string | null;
  userName: string | null;
}

/** The earlier flat representation (plain application/json). */
export type UserFlat = Record<ProfileField, string | null> & {
  id: string;
  externalID: string | null;
  gender: string | null;
  status: UserStatus;
  role: { type: Role } | null;
  created: string;
  updated: string;
};

export type UserRepresentation = UserV3 | UserV2 | UserFlat;

function profileOut(u: UserRecord): ProfileOut {
  const out: ProfileOut = {};
  for (const f of PROFILE_FIELDS) out[f] = u.profile[f] ?? null;
  out.avatar = u.avatar;
  // Custom ids are the user's keys: own properties, whatever a stored row holds (safe-keys.ts).
  for (const [k, v] of Object.entries(u.custom)) setOwn(out, k, v);
  return out;
}

export function toV3(u: UserRecord): UserV3 {
  return {
    id: u.id,
    status: u.status,
    role: u.role,
    createdAt: u.createdAt,
    activatedAt: u.activatedAt,
    externalId: u.externalId,
    email: u.email === null ? null : { value: u.email, source: EMAIL_SOURCE },
    userName: u.userName === null ? null : { value: u.userName, source: USER_NAME_SOURCE },
    config: { locale: u.locale },
    profile: profileOut(u),
  };
}

export function toV2(u: UserRecord): UserV2 {
  return { ...toV3(u), email: u.email, userName: u.userName };
}

export function toFlat(u: UserRecord): UserFlat {
  const profile = Object.fromEntries(PROFILE_FIELDS.map((f) => [f, u.profile[f] ?? null]));
  return {
    id: u.id,
    externalID: u.externalId,
    ...(profile as Record<ProfileField, string | null>),
    gender: u.gender,
    status: u.status,
    role: u.role === null ? null : { type: u.role },
    created: u.createdAt,
    updated: u.updatedAt,
  };
}

export function represent(u: UserRecord, shape: 'flat' | 'v2' | 'v3'): UserRepresentation {
  if (shape === 'flat') return toFlat(u);
  return shape === 'v2' ? toV2(u) : toV3(u);
}
