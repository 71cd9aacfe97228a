/**
 * zod schemas of what the service answers: the user in its three shapes, the medium, the list
 * envelope and the error envelope. The OpenAPI document is generated from them, and the HTTP
 * suites validate every answer they see against that document, so a field added to a
 * representation in user.ts or medium.ts without one here fails a test.
 */
import { z } from 'zod';
import { ERRORS } from './errors.js';
import { MEDIUM_TYPES, PREVIEW } from './medium.js';
import { SEARCH_COUNT_UP_TO } from './schemas.js';
import { PROFILE_FIELDS, ROLES, USER_STATUSES } from './user.js';

const objectId = z
  .string()
  .regex(/^[0-9a-f]{24}$/)
  .describe('24 hexadecimal digits, time-ordered');
const timestamp = z.iso.datetime({ precision: 3 }).describe('ISO 8601 UTC, with milliseconds');
const role = z.enum(ROLES);
const status = z.enum(USER_STATUSES);

const avatarImage = z.strictObject({
  url: z.string(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  size: z.number().int().optional(),
  format: z.string().optional(),
  mimeType: z.string().optional(),
});
const avatar = z.strictObject({
  original: avatarImage.optional(),
  icon: avatarImage.optional(),
  thumb: avatarImage.optional(),
});

/** Named fields always present (null when unset); any other key is a custom profile field. */
const profile = z
  .object({
    ...Object.fromEntries(PROFILE_FIELDS.map((f) => [f, z.string().nullable()])),
    avatar: avatar.nullable(),
  })
  .catchall(z.string().describe('a custom profile field, keyed by its id'));

const sourced = z.strictObject({ value: z.string(), source: z.string() });

const nested = {
  id: objectId,
  status,
  role: role.nullable(),
  createdAt: timestamp,
  activatedAt: timestamp.nullable(),
  externalId: z.string().nullable(),
  config: z.strictObject({ locale: z.string().nullable() }),
  profile,
};

export const userV3Schema = z
  .strictObject({ ...nested, email: sourced.nullable(), userName: sourced.nullable() })
  .describe('A user, current representation (v3)');

export const userV2Schema = z
  .strictObject({ ...nested, email: z.string().nullable(), userName: z.string().nullable() })
  .describe('A user, v2: as v3 with email and userName as plain strings');

export const userFlatSchema = z
  .strictObject({
    id: objectId,
    externalID: z.string().nullable(),
    ...Object.fromEntries([...PROFILE_FIELDS, 'gender'].map((f) => [f, z.string().nullable()])),
    status,
    role: z.strictObject({ type: role }).nullable(),
    created: timestamp,
    updated: timestamp,
  })
  .describe('A user, the earlier flat representation (plain application/json)');

const resourceInfo = z.strictObject({
  type: z.enum(MEDIUM_TYPES),
  bytes: z.number().int().min(0),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  url: z.string().describe('a signed URL of the file under /cdn (or the configured CDN)'),
  format: z.string(),
  mimeType: z.string(),
  duration: z.number().optional().describe('seconds, fractional; videos only'),
});

export const mediumSchema = z
  .strictObject({
    id: objectId,
    ownerID: z.string(),
    ownerType: z.literal('token'),
    publicID: z.string().describe('<tenant>/<branch>/<mediumId>/<fileName>'),
    resourceInfo,
    transformations: z
      .strictObject({
        [PREVIEW]: z.strictObject({
          transformationString: z.literal(PREVIEW),
          status: z.literal('FINISHED'),
          resourceInfo,
        }),
      })
      .optional()
      .describe('absent when no preview could be made'),
    previewError: z
      .string()
      .optional()
      .describe(
        "Roster extension, in an upload's answer only: why a file of a type that gets previews has none",
      ),
    fileName: z.string(),
    entityType: z.literal('medium'),
  })
  .describe('A medium (uploaded file)');

/** The list envelope of GET /users and GET /media. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    total: z.number().int().min(0).describe('how many match, across all pages'),
    limit: z.number().int().min(1).describe('the limit applied (at most 1000)'),
    offset: z.number().int().min(0),
    data: z.array(item),
  });

/** A users page: the same, with the cursor of the page after it (absent on the last page). */
export const cursorPageSchema = <T extends z.ZodType>(item: T) =>
  pageSchema(item).extend({
    totalExact: z
      .literal(false)
      .optional()
      .describe(
        `present (false) when a \`query\` matches more than ${SEARCH_COUNT_UP_TO} users: \`total\` is then ${SEARCH_COUNT_UP_TO}, and more match. Absent: \`total\` is exact`,
      ),
    next: z
      .string()
      .optional()
      .describe('the next page: send it as `after` with the same sort, status and query'),
  });

export const errorEnvelopeSchema = z
  .strictObject({
    identifier: z.literal(Object.values(ERRORS).map((e) => e.identifier)),
    statusCode: z.number().int(),
    message: z.string().describe('what went wrong and what to do about it'),
    type: z.string(),
    details: z
      .array(z.strictObject({ field: z.string(), message: z.string() }))
      .optional()
      .describe('validation errors: one entry per field'),
  })
  .describe('The error envelope of every 4xx and 5xx answer');
