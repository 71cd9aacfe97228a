/**
 * A row as field values, and the three things done with them: validate with the contract's
 * schemas, compare with a user the service has, and turn into a v3 request body.
 */
import { type ZodType, z } from 'zod';
import { fromCsvCell } from '../contract/csv-cell.js';
import { isIdentityField, sameIdentity } from '../contract/identity.js';
import { fieldIssues, userBodySchemas } from '../contract/schemas.js';
import { roleName, type UserV3 } from '../contract/user.js';
import { fieldAt, PROFILE_FIELDS, USER_FIELDS, type UserField } from '../contract/user-fields.js';
import { CREATE_ONLY, CUSTOM_PREFIX, type Layout, READ_ONLY } from './columns.js';

/** A row's cells by field: a string sets, null clears (`--empty-clears`); absent = unchanged. */
export type Values = Record<string, string | null>;

export interface Change {
  field: string;
  from: string | null;
  to: string | null;
}

export interface Issue {
  field: string;
  message: string;
}

const NAMED_PROFILE: ReadonlySet<string> = new Set(PROFILE_FIELDS);
const FIELDS: readonly UserField[] = USER_FIELDS;
/** Field → its path in a v3 body, split once. */
const BODY_PATH = new Map(FIELDS.map((f) => [f.name, f.body.split('.')]));
/** The fields a v3 user answers, with the path of each, split once. */
const READ_PATHS = FIELDS.flatMap((f) => (f.read ? [[f.name, f.read.split('.')] as const] : []));
/** Those an import compares (read-only ones are never written, so never compared). */
const COMPARED_PATHS = READ_PATHS.filter(([name]) => !READ_ONLY.has(name));
const READ_ONLY_PATHS = READ_PATHS.filter(([name]) => READ_ONLY.has(name));

const valuesAt = (user: UserV3, paths: typeof READ_PATHS, values: Values) => {
  for (const [field, path] of paths) {
    let at: unknown = user;
    for (const key of path) at = (at as Record<string, unknown> | null | undefined)?.[key];
    if (typeof at === 'string') values[field] = at;
  }
  return values;
};

/**
 * The row's values; cells are trimmed and unquoted (contract/csv-cell), composed (NFC: a Mac's
 * export writes `é` as `e` and an accent, which is the same text and must not read as a change
 * every night), roles as contract/user.ts roleName reads them. Where several columns feed one
 * field, the first non-empty one in the layout's order wins.
 */
export function rowValues(cells: string[], layout: Layout, emptyClears: boolean) {
  const values: Values = {};
  for (const i of layout.order) {
    const field = layout.fields[i];
    if (!field) continue;
    const cell = fromCsvCell((cells[i] ?? '').trim()).normalize('NFC');
    if (cell !== '') {
      if (values[field] == null) values[field] = field === 'role' ? roleName(cell) : cell;
    } else if (emptyClears && !CREATE_ONLY.has(field) && !(field in values)) values[field] = null;
  }
  return values;
}

/** The v3 body (create or update) that sets these values, at the table's paths. */
export function toBody(values: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  // for…in, not Object.entries: every row of a plan is validated through this body.
  for (const field in values) {
    const path = BODY_PATH.get(field) ?? ['profile', field.slice(CUSTOM_PREFIX.length)];
    let at = body;
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i]!;
      if (at[key] === undefined) at[key] = {};
      at = at[key] as Record<string, unknown>;
    }
    at[path[path.length - 1]!] = values[field] as string | null;
  }
  return body;
}

/** Body path (`profile.firstName`, `config.locale`, `recoveryCode.plain`) → import field. */
function fieldOfPath(path: string): string {
  const named = fieldAt(path);
  if (named) return named;
  // An issue about a field's object (`recoveryCode`) names the field that writes into it.
  const inside = FIELDS.find((f) => f.body.startsWith(`${path}.`));
  return inside ? inside.name : path;
}

/**
 * The update schema's own schema for the value at a body path, where a value can be checked
 * alone: every object on the way accepts `{}` (no other key is required). A body whose every
 * value passes its own schema then passes the whole schema, because no rule spans fields but
 * profileSchema's superRefine, which only reads keys its shape does not name (custom fields,
 * which have no schema here). test/import/fields.test.ts holds the two checks to each other.
 */
function schemaAt(path: readonly string[]): ZodType | undefined {
  let at: ZodType = userBodySchemas.v3.update;
  for (const key of path) {
    while (at instanceof z.ZodOptional || at instanceof z.ZodNullable) at = at.unwrap() as ZodType;
    if (!(at instanceof z.ZodObject) || !at.safeParse({}).success) return undefined;
    if (!Object.hasOwn(at.shape, key)) return undefined;
    at = (at.shape as Record<string, ZodType>)[key]!;
  }
  return at;
}

/** Field → its value's schema, for the fields whose value can be checked alone (made on first use). */
let valueSchemas: Map<string, ZodType> | undefined;
const valueSchema = (field: string) => {
  valueSchemas ??= new Map(
    FIELDS.flatMap((f) => {
      const schema = schemaAt(f.body.split('.'));
      return schema ? [[f.name, schema] as const] : [];
    }),
  );
  return valueSchemas.get(field);
};

/**
 * Whether every value passes its own schema (so the whole body does). Checking each value alone
 * costs a tenth of building the body and parsing it whole (20,000 rows: bench/README.md), and
 * almost every row of a file passes; a row that does not is parsed whole for zod's messages.
 */
function eachValid(values: Values): boolean {
  for (const field in values) {
    const schema = valueSchema(field);
    if (!schema?.safeParse(values[field]).success) return false;
  }
  return true;
}

/** What the contract's update schema says about these values (the same check the server runs). */
export function validate(values: Values): Issue[] {
  if (eachValid(values)) return [];
  const parsed = userBodySchemas.v3.update.safeParse(toBody(values));
  if (parsed.success) return [];
  return fieldIssues(parsed.error).map((i) => ({
    field: fieldOfPath(i.field),
    message: i.message,
  }));
}

/** A known user's values, as an import row would write them (absent = empty). */
export function currentValues(user: UserV3): Values {
  const values = valuesAt(user, COMPARED_PATHS, {});
  const profile = user.profile ?? {};
  // for…in, not Object.entries: the snapshot runs this for every user of the branch.
  for (const key in profile) {
    if (key === 'avatar' || NAMED_PROFILE.has(key) || !Object.hasOwn(profile, key)) continue;
    const value = profile[key as keyof typeof profile];
    if (typeof value === 'string') values[`${CUSTOM_PREFIX}${key}`] = value;
  }
  return values;
}

/** A user's values as the export writes them: those an import compares, and the read-only ones. */
export const exportValues = (user: UserV3): Values =>
  valuesAt(user, READ_ONLY_PATHS, currentValues(user));

/** Equal for an import: padding aside, and unique keys as the service compares them. */
function same(field: string, from: string | null, to: string | null): boolean {
  if (to === null || from === null) return to === from;
  const a = from.trim();
  if (isIdentityField(field)) return sameIdentity(field, a, to);
  return from === to || a === to;
}

/** The fields a row would change on a user; create-only fields never count. */
export function diff(values: Values, current: Values): Change[] {
  const changes: Change[] = [];
  for (const field in values) {
    const to = values[field] as string | null;
    if (CREATE_ONLY.has(field)) continue;
    const from = current[field] ?? null;
    if (!same(field, from, to)) changes.push({ field, from, to });
  }
  return changes;
}

/** The body of a create: every value set (clears mean nothing on a new user). */
export function createBody(values: Values, sendMail: boolean): Record<string, unknown> {
  const set = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null));
  return { ...toBody(set), sendMail };
}

/** The body of an update: the changed fields only. */
export function updateBody(changes: Change[]): Record<string, unknown> {
  const status = changes.find((c) => c.field === 'status');
  const values = Object.fromEntries(
    changes.filter((c) => c.field !== 'status').map((c) => [c.field, c.to]),
  );
  // A return to pending is asked of the service as an activation: it decides where they go.
  const to = status?.to === 'pending' ? 'activated' : status?.to;
  return { ...toBody(values), ...(status ? { status: to } : {}) };
}
