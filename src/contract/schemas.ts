/**
 * zod schemas for every request body and query string. The server validates with them, and the
 * CLI validates the same way before it sends (so `users import` reports a bad email by line
 * instead of by 400).
 */
import { type ZodError, z } from 'zod';
import type { FieldIssue } from './errors.js';
import { FORMAT_MESSAGE, hasFormatChars } from './identity.js';
import {
  CONTROL_MESSAGE,
  hasControlChars,
  MAX_CUSTOM_FIELDS,
  MAX_CUSTOM_KEY,
  MAX_CUSTOM_VALUE,
} from './limits.js';
import { MEDIUM_TYPES } from './medium.js';
import { isForbiddenKey, RESERVED_KEY_MESSAGE } from './safe-keys.js';
import {
  LISTABLE_STATUSES,
  MAX_QUERY_LENGTH,
  PROFILE_FIELDS,
  parseSort,
  parseStatusList,
  ROLES,
} from './user.js';
import { namesProfileField } from './user-fields.js';

export const MAX_TEXT = 256;
export const MAX_LIMIT = 1000;
export const DEFAULT_LIMIT = 100;
/**
 * A users list with a `query` counts its matches up to this many; above it `total` is this
 * number and `totalExact` false. Counting every match of a one-letter query at 1,000,000 users
 * reads a third of them; lists without a query are always exact (kept counts, no counting).
 */
export const SEARCH_COUNT_UP_TO = 10_000;

/** A string without control characters: every text a user record holds is one. */
const plain = () => z.string().refine((s) => !hasControlChars(s), CONTROL_MESSAGE);
const text = (max = MAX_TEXT) => plain().min(1, 'must not be empty').max(max);

// Format characters first, so a zero-width space is named as what it is (identity.ts).
export const emailSchema = z
  .email('is not a valid email address')
  .max(254)
  .refine((s) => !hasFormatChars(s), FORMAT_MESSAGE);
export const localeSchema = z
  .string()
  .regex(/^[a-z]{2}_[A-Z]{2}$/, 'must have the form xx_YY, for example de_DE');
export const roleSchema = z.enum(ROLES, `must be one of ${ROLES.join(', ')}`);
export const userNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(128)
  .regex(/^[^\s\p{Cc}]+$/u, 'must not contain spaces or control characters')
  .refine((s) => !hasFormatChars(s), FORMAT_MESSAGE);
export const secretSchema = z.string().min(8, 'must be at least 8 characters').max(256);
/**
 * Custom profile field ids: letters, digits, `_` and `-`; never a named field's name, nor a
 * name that reaches a prototype (safe-keys.ts).
 */
export const customFieldIdSchema = z
  .string()
  .regex(
    new RegExp(`^[A-Za-z0-9_-]{1,${MAX_CUSTOM_KEY}}$`),
    'is not a valid custom profile field id',
  )
  .refine((id) => !isForbiddenKey(id), RESERVED_KEY_MESSAGE);

const recoveryCodeSchema = z.strictObject({
  plain: z.string().min(4).max(256),
  expires: z.number().int().positive().nullable().optional(),
});

const avatarImageSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048),
});
const avatarSchema = z.strictObject({
  original: avatarImageSchema.optional(),
  icon: avatarImageSchema.optional(),
  thumb: avatarImageSchema.optional(),
});

const profileSchema = z
  .object({
    ...Object.fromEntries(PROFILE_FIELDS.map((f) => [f, text().nullable().optional()])),
    avatar: avatarSchema.nullable().optional(),
  })
  .catchall(plain().max(MAX_CUSTOM_VALUE).nullable())
  .superRefine((profile, ctx) => {
    let custom = 0;
    for (const key of Object.keys(profile)) {
      if ((PROFILE_FIELDS as readonly string[]).includes(key) || key === 'avatar') continue;
      // A near-miss of a named field ("firstname") is a typo, not a custom field.
      if (namesProfileField(key) || !customFieldIdSchema.safeParse(key).success) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'is not a known field' });
      } else if (profile[key] !== null) custom += 1;
    }
    if (custom > MAX_CUSTOM_FIELDS) {
      ctx.addIssue({
        code: 'custom',
        message: `may hold at most ${MAX_CUSTOM_FIELDS} custom fields (this body sets ${custom})`,
      });
    }
  });

const emailField = z.union([
  emailSchema,
  z.strictObject({ value: emailSchema, source: plain().max(32).optional() }),
]);
const userNameField = z.union([
  userNameSchema,
  z.strictObject({ value: userNameSchema, source: plain().max(32).optional() }),
]);

/** Fields shared by the nested shapes (v2 and v3); v2 takes plain strings for email/userName. */
function nestedBase(plainStrings: boolean) {
  return {
    externalId: text().nullable().optional(),
    email: (plainStrings ? emailSchema : emailField).nullable().optional(),
    userName: (plainStrings ? userNameSchema : userNameField).nullable().optional(),
    secret: secretSchema.optional(),
    recoveryCode: recoveryCodeSchema.nullable().optional(),
    role: roleSchema.nullable().optional(),
    config: z.strictObject({ locale: localeSchema.nullable().optional() }).optional(),
    profile: profileSchema.optional(),
  };
}

const flatBase = {
  email: emailSchema.nullable().optional(),
  userName: userNameSchema.nullable().optional(),
  externalID: text().nullable().optional(),
  ...Object.fromEntries(PROFILE_FIELDS.map((f) => [f, text().nullable().optional()])),
  gender: text(64).nullable().optional(),
  role: z
    .union([roleSchema, z.strictObject({ type: roleSchema })])
    .nullable()
    .optional(),
  secret: secretSchema.optional(),
};

const statusChange = z.enum(
  ['activated', 'deactivated'],
  'can only be set to activated or deactivated',
);

export const userBodySchemas = {
  v3: {
    create: z.strictObject({ ...nestedBase(false), sendMail: z.boolean().optional() }),
    update: z.strictObject({ ...nestedBase(false), status: statusChange.optional() }),
  },
  v2: {
    create: z.strictObject({ ...nestedBase(true), sendMail: z.boolean().optional() }),
    update: z.strictObject({ ...nestedBase(true), status: statusChange.optional() }),
  },
  flat: {
    create: z.strictObject({ ...flatBase, sendMail: z.boolean().optional() }),
    update: z.strictObject({ ...flatBase, status: statusChange.optional() }),
  },
} as const;

/** Keys a client may read but never write, per shape: answered "is read-only", not "unknown". */
export const READ_ONLY_KEYS = {
  v3: ['id', 'status', 'createdAt', 'activatedAt'],
  v2: ['id', 'status', 'createdAt', 'activatedAt'],
  flat: ['id', 'status', 'created', 'updated'],
} as const;

const intParam = (name: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a whole number`)
    .transform(Number);

const sortSchema = z.string().transform((s, ctx) => {
  const parsed = parseSort(s);
  if ('error' in parsed) {
    ctx.addIssue({ code: 'custom', message: parsed.error });
    return z.NEVER;
  }
  return parsed.sort;
});

const statusListSchema = z.string().transform((s, ctx) => {
  const statuses = parseStatusList(s);
  if (statuses === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `must be one or more of ${LISTABLE_STATUSES.join(', ')}, comma-separated`,
    });
    return z.NEVER;
  }
  return statuses;
});

const limitSchema = intParam('limit')
  .refine((n) => n >= 1, 'limit must be at least 1')
  .transform((n) => Math.min(n, MAX_LIMIT));

export const pageQuerySchema = z.strictObject({
  limit: limitSchema.optional(),
  offset: intParam('offset').optional(),
});

export const userListQuerySchema = z.strictObject({
  limit: limitSchema.optional(),
  offset: intParam('offset').optional(),
  /** A page's `next`: the page after it (keyset paging; never with `offset`). */
  after: z.string().min(1, 'must be a cursor').max(4096).optional(),
  query: z.string().max(MAX_QUERY_LENGTH).optional(),
  sort: sortSchema.optional(),
  status: statusListSchema.optional(),
});
export type UserListQuery = z.output<typeof userListQuerySchema>;

/** The `metaData` part of POST /media: `{"type": …}`, a hint only (the bytes decide). */
export const mediaMetaDataSchema = z.strictObject({
  type: z.enum(MEDIUM_TYPES, `must be one of ${MEDIUM_TYPES.join(', ')}`).optional(),
});
export type MediaMetaData = z.output<typeof mediaMetaDataSchema>;

/** zod's issues as the error envelope's `details`, with dotted field paths. */
export function fieldIssues(error: ZodError, prefix = ''): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({
        field: path ? `${path}.${k}` : k,
        message: 'is not a known field',
      }));
    }
    return [{ field: path || '(body)', message: issue.message }];
  });
}
