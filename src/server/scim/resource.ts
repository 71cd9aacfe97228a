/**
 * A user as a SCIM User resource and back: `toScim` from the service's record, `scimBody` from
 * a resource to the v3 body the REST API takes (so one validation, with its size and
 * control-character limits, holds for both). Both walk the map derived from the field table.
 */
import { localeSchema } from '../../contract/schemas.js';
import { toV3, type UserRecord } from '../../contract/user.js';
import { withValueAt } from '../../contract/user-fields.js';
import { etagOf } from '../http/etag.js';
import {
  activeValue,
  CORE_USER,
  ENTERPRISE_USER,
  fromScimLocale,
  MAX_VALUES,
  overfullAttribute,
  prop,
  ROSTER_USER,
  readPath,
  SCIM_FIELDS,
  shapeProblem,
  toScimLocale,
  writePath,
} from './attributes.js';
import { ScimError } from './errors.js';

type Obj = Record<string, unknown>;

function readDotted(o: unknown, path: string): unknown {
  let v = o;
  for (const part of path.split('.')) v = (v as Obj | null | undefined)?.[part];
  return v;
}

/** The SCIM User of a record; `location` is its absolute URL. */
export function toScim(user: UserRecord, location: string): Obj {
  const v3 = toV3(user);
  const resource: Obj = { schemas: [CORE_USER], id: user.id };
  for (const m of SCIM_FIELDS) {
    if (!m.field.read) continue;
    let value = readDotted(v3, m.field.read);
    // A user made through REST with no userName logs in with its email: SCIM shows that.
    if (m.field.name === 'userName') value ??= user.email;
    if (value === null || value === undefined) continue;
    if (m.field.name === 'locale') value = toScimLocale(value as string);
    writePath(resource, m.path, value);
  }
  const emails = resource.emails as Obj[] | undefined;
  const work = emails?.find((e) => e.type === 'work');
  if (work) work.primary = true;
  // IdPs read a deactivated user as inactive; pending (invited) counts as active.
  resource.active = user.status !== 'deactivated';
  if (Object.keys(user.custom).length > 0) resource[ROSTER_USER] = { ...user.custom };
  resource.schemas = [CORE_USER, ...[ENTERPRISE_USER, ROSTER_USER].filter((u) => u in resource)];
  resource.meta = {
    resourceType: 'User',
    created: user.createdAt,
    lastModified: user.updatedAt,
    location,
    version: etagOf(user.version),
  };
  return resource;
}

/**
 * A SCIM locale (BCP 47, `de-DE`) as the service's (`de_DE`); one the service would refuse is
 * refused here, in SCIM's form, so the provider is not told to send REST's `de_DE`.
 */
function localeFromScim(value: string): string {
  const locale = fromScimLocale(value);
  if (!localeSchema.safeParse(locale).success) {
    throw new ScimError(
      'validation',
      'invalidValue',
      'locale must have the form xx-YY (a BCP 47 language and region), for example de-DE',
    );
  }
  return locale;
}

function refuseMisshapen(resource: unknown) {
  const problem = shapeProblem(resource);
  if (problem) throw new ScimError('validation', 'invalidValue', problem);
  const overfull = overfullAttribute(resource);
  if (overfull) {
    throw new ScimError('validation', 'tooMany', `${overfull} holds at most ${MAX_VALUES} values`);
  }
}

/** What a SCIM write asks beyond the body: the `active` flag (absent: not said). */
export interface ScimBody {
  body: Obj;
  active?: boolean;
}

/**
 * A v3 body from a SCIM resource. `replace` (PUT): a mapped attribute the resource leaves out
 * is cleared, except the keys that say who the user is and the password, which a full PUT from
 * an IdP may omit; custom fields change only where the Roster extension names them.
 */
export function scimBody(resource: unknown, mode: 'create' | 'replace'): ScimBody {
  refuseMisshapen(resource);
  let body: Obj = {};
  for (const m of SCIM_FIELDS) {
    let value = readPath(resource, m.path);
    if (value === undefined) {
      if (mode === 'create' || m.field.identity || m.field.name === 'secret') continue;
      value = null;
    }
    if (m.field.name === 'locale' && typeof value === 'string') value = localeFromScim(value);
    body = withValueAt(body, m.field.body, value);
  }
  const custom = prop(resource, ROSTER_USER);
  if (custom !== null && typeof custom === 'object' && !Array.isArray(custom)) {
    for (const [id, value] of Object.entries(custom)) {
      body = withValueAt(body, `profile.${id}`, value);
    }
  }
  const active = activeValue(prop(resource, 'active'));
  return active === undefined ? { body } : { body, active };
}

/**
 * The v3 body that turns `before` into `after` (two SCIM resources, the second a PATCH's
 * result): the mapped attributes and custom fields that differ, absent ones as null.
 */
export function scimChanges(before: Obj, after: Obj): ScimBody {
  refuseMisshapen(after);
  if (prop(after, 'active') == null) {
    throw new ScimError(
      'validation',
      'invalidValue',
      'active is true or false: it cannot be removed',
    );
  }
  let body: Obj = {};
  for (const m of SCIM_FIELDS) {
    const was = readPath(before, m.path);
    let now = readPath(after, m.path);
    if (was === now) continue;
    if (m.field.name === 'locale' && typeof now === 'string') now = localeFromScim(now);
    body = withValueAt(body, m.field.body, now ?? null);
  }
  const wasCustom = (prop(before, ROSTER_USER) ?? {}) as Obj;
  const nowCustom = (prop(after, ROSTER_USER) ?? {}) as Obj;
  // Compared as JSON: a value is a string, but a row may hold what no write of ours made (an
  // object, under a key the guard refuses now), and that is no change the PATCH asked for.
  for (const id of new Set([...Object.keys(wasCustom), ...Object.keys(nowCustom)])) {
    if (JSON.stringify(wasCustom[id]) !== JSON.stringify(nowCustom[id]))
      body = withValueAt(body, `profile.${id}`, nowCustom[id] ?? null);
  }
  const was = activeValue(prop(before, 'active'));
  const now = activeValue(prop(after, 'active'));
  return now === undefined || now === was ? { body } : { body, active: now };
}
