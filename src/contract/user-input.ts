/**
 * Request bodies of every user version → one `UserInput`. This is the inbound half of the
 * flat ↔ current mapping (the outbound half is in user.ts).
 */
import type { z } from 'zod';
import type { FieldIssue } from './errors.js';
import { LOGIN_REQUIRED } from './identity.js';
import { isForbiddenKey, keyedRecord, RESERVED_KEY_MESSAGE, setOwn } from './safe-keys.js';
import { fieldIssues, READ_ONLY_KEYS, userBodySchemas } from './schemas.js';
import { PROFILE_FIELDS, type ProfileField, type UserInput } from './user.js';
import { missingRequired } from './versions.js';

export type UserBodyShape = 'flat' | 'v2' | 'v3';
export type UserOperation = 'create' | 'update';

export type ParseResult = { ok: true; input: UserInput } | { ok: false; issues: FieldIssue[] };

type Nested = z.output<(typeof userBodySchemas)['v3']['update']> & { sendMail?: boolean };
type Flat = z.output<(typeof userBodySchemas)['flat']['update']> & { sendMail?: boolean };

function plainValue(v: string | { value: string } | null | undefined) {
  return v === null || v === undefined || typeof v === 'string' ? v : v.value;
}

function copyDefined<T extends object>(target: T, source: Partial<T>) {
  for (const [k, v] of Object.entries(source)) {
    if (v !== undefined) (target as Record<string, unknown>)[k] = v;
  }
  return target;
}

function fromNested(b: Nested): UserInput {
  const input: UserInput = copyDefined<UserInput>(
    {},
    {
      externalId: b.externalId,
      email: plainValue(b.email),
      userName: plainValue(b.userName),
      secret: b.secret,
      recoveryCode:
        b.recoveryCode === undefined || b.recoveryCode === null
          ? b.recoveryCode
          : { plain: b.recoveryCode.plain, expires: b.recoveryCode.expires ?? null },
      sendMail: b.sendMail,
      role: b.role,
      locale: b.config?.locale,
      status: b.status,
    },
  );
  if (b.profile) {
    const profile: Partial<Record<ProfileField, string | null>> = {};
    const custom = keyedRecord<string | null>();
    for (const [k, v] of Object.entries(b.profile)) {
      if (k === 'avatar') input.avatar = v as UserInput['avatar'];
      else if ((PROFILE_FIELDS as readonly string[]).includes(k))
        profile[k as ProfileField] = v as string | null;
      else setOwn(custom, k, v as string | null);
    }
    if (Object.keys(profile).length > 0) input.profile = profile;
    if (Object.keys(custom).length > 0) input.custom = custom;
  }
  return input;
}

function fromFlat(b: Flat): UserInput {
  const profile: Partial<Record<ProfileField, string | null>> = {};
  for (const f of PROFILE_FIELDS) {
    const v = (b as Record<string, unknown>)[f] as string | null | undefined;
    if (v !== undefined) profile[f] = v;
  }
  const role = b.role === undefined || b.role === null ? b.role : valueOfRole(b.role);
  const input = copyDefined<UserInput>(
    {},
    {
      email: b.email,
      userName: b.userName,
      externalId: b.externalID,
      gender: b.gender,
      role,
      secret: b.secret,
      sendMail: b.sendMail,
      status: b.status,
    },
  );
  if (Object.keys(profile).length > 0) input.profile = profile;
  return input;
}

/** The custom field ids of a nested body's profile that name a prototype, as field paths. */
function reservedProfileKeys(body: object): string[] {
  const profile = Object.hasOwn(body, 'profile') ? (body as { profile: unknown }).profile : null;
  if (profile === null || typeof profile !== 'object') return [];
  return Object.keys(profile)
    .filter(isForbiddenKey)
    .map((k) => `profile.${k}`);
}

function valueOfRole(role: NonNullable<Flat['role']>) {
  return typeof role === 'string' ? role : role.type;
}

/**
 * Validates a body of the given shape for create or update and maps it to a `UserInput`;
 * `requires` names fields the media type makes mandatory (`role`, `config.locale`).
 */
export function parseUserBody(
  shape: UserBodyShape,
  operation: UserOperation,
  body: unknown,
  requires: readonly string[] = [],
): ParseResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, issues: [{ field: '(body)', message: 'must be a JSON object' }] };
  }
  const readOnly = READ_ONLY_KEYS[shape].filter(
    (k) => k in body && !(k === 'status' && operation === 'update'),
  );
  if (readOnly.length > 0) {
    return { ok: false, issues: readOnly.map((field) => ({ field, message: 'is read-only' })) };
  }
  // Before the schema: it leaves `__proto__` out of what it parses, and would refuse an object
  // under `constructor` for its type, not its name.
  const reserved = reservedProfileKeys(body);
  if (reserved.length > 0) {
    return {
      ok: false,
      issues: reserved.map((field) => ({ field, message: RESERVED_KEY_MESSAGE })),
    };
  }
  const parsed = userBodySchemas[shape][operation].safeParse(body);
  if (!parsed.success) return { ok: false, issues: fieldIssues(parsed.error) };
  const input =
    shape === 'flat' ? fromFlat(parsed.data as Flat) : fromNested(parsed.data as Nested);
  const missing = missingRequired(parsed.data, requires);
  if (missing.length > 0) {
    return {
      ok: false,
      issues: missing.map((field) => ({ field, message: 'is required by this media type' })),
    };
  }
  if (operation === 'create' && !input.email && !input.userName) {
    return { ok: false, issues: [{ ...LOGIN_REQUIRED }] };
  }
  if (operation === 'update' && Object.keys(input).length === 0) {
    return { ok: false, issues: [{ field: '(body)', message: 'names no field to change' }] };
  }
  return { ok: true, input };
}
