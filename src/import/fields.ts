/**
 * A row as field values, and the three things done with them: validate with the contract's
 * schemas, compare with a user the service has, and turn into a v3 request body.
 */
import { fromCsvCell } from '../contract/csv-cell.js';
import { isIdentityField, sameIdentity } from '../contract/identity.js';
import { fieldIssues, userBodySchemas } from '../contract/schemas.js';
import { PROFILE_FIELDS, type UserV3 } from '../contract/user.js';
import { CREATE_ONLY, CUSTOM_PREFIX, type Layout } from './columns.js';

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

/**
 * The row's values; cells are trimmed and unquoted (contract/csv-cell), roles lower-cased. Where
 * several columns feed one field, the first non-empty one in the layout's order wins.
 */
export function rowValues(cells: string[], layout: Layout, emptyClears: boolean) {
  const values: Values = {};
  for (const i of layout.order) {
    const field = layout.fields[i];
    if (!field) continue;
    const cell = fromCsvCell((cells[i] ?? '').trim());
    if (cell !== '') {
      if (values[field] == null) values[field] = field === 'role' ? cell.toLowerCase() : cell;
    } else if (emptyClears && !CREATE_ONLY.has(field) && !(field in values)) values[field] = null;
  }
  return values;
}

/** The v3 body (create or update) that sets these values. */
export function toBody(values: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const profile: Record<string, string | null> = {};
  let profiled = false;
  // for…in, not Object.entries: every row of a plan is validated through this body.
  for (const field in values) {
    const value = values[field] as string | null;
    if (field === 'locale') body.config = { locale: value };
    else if (field === 'recoveryCode') body.recoveryCode = value === null ? null : { plain: value };
    else if (NAMED_PROFILE.has(field)) {
      profile[field] = value;
      profiled = true;
    } else if (field.startsWith(CUSTOM_PREFIX)) {
      profile[field.slice(CUSTOM_PREFIX.length)] = value;
      profiled = true;
    } else body[field] = value;
  }
  if (profiled) body.profile = profile;
  return body;
}

/** Body path (`profile.firstName`, `config.locale`) → import field. */
function fieldOfPath(path: string): string {
  if (path === 'config.locale') return 'locale';
  if (path.startsWith('recoveryCode')) return 'recoveryCode';
  const [head, rest] = [path.slice(0, CUSTOM_PREFIX.length), path.slice(CUSTOM_PREFIX.length)];
  if (head === CUSTOM_PREFIX && NAMED_PROFILE.has(rest)) return rest;
  return path;
}

/** What the contract's update schema says about these values (the same check the server runs). */
export function validate(values: Values): Issue[] {
  const parsed = userBodySchemas.v3.update.safeParse(toBody(values));
  if (parsed.success) return [];
  return fieldIssues(parsed.error).map((i) => ({
    field: fieldOfPath(i.field),
    message: i.message,
  }));
}

/** A known user's values, as an import row would write them (absent = empty). */
export function currentValues(user: UserV3): Values {
  const values: Values = {};
  const set = (field: string, value: unknown) => {
    if (typeof value === 'string') values[field] = value;
  };
  set('externalId', user.externalId);
  set('email', user.email?.value);
  set('userName', user.userName?.value);
  set('role', user.role);
  set('locale', user.config?.locale);
  const profile = user.profile ?? {};
  // for…in, not Object.entries: the snapshot runs this for every user of the branch.
  for (const key in profile) {
    if (key === 'avatar' || !Object.hasOwn(profile, key)) continue;
    set(
      NAMED_PROFILE.has(key) ? key : `${CUSTOM_PREFIX}${key}`,
      profile[key as keyof typeof profile],
    );
  }
  return values;
}

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
  return { ...toBody(values), ...(status ? { status: status.to } : {}) };
}
