/**
 * SCIM's attribute map, derived from the user-field table (contract/user-fields.ts, the `scim`
 * key of each row), and the few reads and writes of SCIM paths the map needs. Attribute names
 * compare without case, as RFC 7643 §2.1 says; values of a multi-valued attribute are told apart
 * by their `type`.
 */
import { USER_FIELDS, type UserField } from '../../contract/user-fields.js';

export const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
/** Custom profile fields, by their ids, as string attributes. */
export const ROSTER_USER = 'urn:roster:params:scim:schemas:extension:roster:2.0:User';
export const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SEARCH_REQUEST = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A path of the map: `[urn:]attr[.sub]` or `attr[type eq "t"].sub`. */
export interface ScimPath {
  /** The extension the attribute belongs to; absent: the core schema. */
  urn?: string;
  attr: string;
  sub?: string;
  /** The entry of a multi-valued attribute with this `type`. */
  type?: string;
}

const EXTENSIONS = [ENTERPRISE_USER, ROSTER_USER];

export function parsePath(path: string): ScimPath {
  const urn = EXTENSIONS.find((u) => path.startsWith(`${u}:`));
  const rest = urn ? path.slice(urn.length + 1) : path;
  const typed = /^(\w+)\[type eq "(\w+)"\]\.(\w+)$/.exec(rest);
  if (typed) return { attr: typed[1]!, type: typed[2]!, sub: typed[3]! };
  const [attr, sub] = rest.split('.');
  return { ...(urn ? { urn } : {}), attr: attr!, ...(sub ? { sub } : {}) };
}

export interface MappedField {
  field: UserField;
  path: ScimPath;
  /** The SCIM path as the table spells it. */
  scim: string;
}

/** Every field SCIM carries, in the table's order. */
export const SCIM_FIELDS: readonly MappedField[] = USER_FIELDS.flatMap((f: UserField) =>
  f.scim ? [{ field: f, path: parsePath(f.scim), scim: f.scim }] : [],
);

export const scimField = (name: string): MappedField | undefined =>
  SCIM_FIELDS.find((m) => m.field.name === name);

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object's property by a name compared without case (attribute names are caseless). */
export function prop(o: unknown, name: string): unknown {
  if (!isObject(o)) return undefined;
  if (Object.hasOwn(o, name)) return o[name];
  const lower = name.toLowerCase();
  const key = Object.keys(o).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : o[key];
}

/**
 * The entry of a multi-valued attribute with `type`. Identity providers that send one entry
 * without a type mean the one the map reads first (a work email, a mobile number): an untyped
 * entry counts as the first typed path of that attribute in the map.
 */
function entryOf(list: unknown, type: string, attr: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  const entries = list.filter(isObject);
  // Of several of a type, the last marked primary, else the last: an `add` to the attribute
  // appends its entry after the one there was, and a secondary alias must not take its place.
  const ofType = entries.filter((e) => String(prop(e, 'type') ?? '').toLowerCase() === type);
  const typed = ofType.findLast((e) => prop(e, 'primary') === true) ?? ofType.at(-1);
  if (typed) return typed;
  const first = SCIM_FIELDS.find((m) => m.path.attr === attr && m.path.type)?.path.type;
  if (first !== type) return undefined;
  return (
    entries.find((e) => prop(e, 'type') == null && prop(e, 'primary') === true) ??
    entries.find((e) => prop(e, 'type') == null)
  );
}

/** The value at a path of a SCIM resource; undefined when absent (JSON null counts as absent). */
export function readPath(resource: unknown, p: ScimPath): unknown {
  const holder = p.urn ? prop(resource, p.urn) : resource;
  const top = prop(holder, p.attr);
  const value = p.type
    ? prop(entryOf(top, p.type, p.attr), p.sub!)
    : p.sub
      ? prop(top, p.sub)
      : top;
  return value === null ? undefined : value;
}

/** Sets a value at a path of a resource being built (values are never null here). */
export function writePath(resource: Obj, p: ScimPath, value: unknown): void {
  let holder = resource;
  if (p.urn) {
    holder = (resource[p.urn] as Obj | undefined) ?? {};
    resource[p.urn] = holder;
  }
  if (p.type) {
    const list = (holder[p.attr] as Obj[] | undefined) ?? [];
    holder[p.attr] = list;
    let entry = list.find((e) => e.type === p.type);
    if (!entry) {
      entry = { type: p.type };
      list.push(entry);
    }
    entry[p.sub!] = value;
  } else if (p.sub) {
    const inner = (holder[p.attr] as Obj | undefined) ?? {};
    holder[p.attr] = inner;
    inner[p.sub] = value;
  } else {
    holder[p.attr] = value;
  }
}

/** SCIM locales are BCP 47 (`en-US`); the service's are `en_US`. */
export const toScimLocale = (locale: string) => locale.replace('_', '-');
export function fromScimLocale(locale: string): string {
  const m = /^([a-z]{2})[-_]([a-z]{2})$/i.exec(locale);
  return m ? `${m[1]!.toLowerCase()}_${m[2]!.toUpperCase()}` : locale;
}

/** `active` as identity providers send it: Entra ID sends the strings "True" and "False". */
export function activeValue(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  return undefined;
}

/** The multi-valued attributes of the map (their entries told apart by `type`). */
const MULTI_VALUED = [
  ...new Map(SCIM_FIELDS.filter((m) => m.path.type).map((m) => [m.path.attr, m.path])).values(),
];

/**
 * Values one multi-valued attribute may hold (an IdP sends one or two emails, a phone number):
 * a request with more is 400 tooMany, so no list a write walks grows with the request.
 */
export const MAX_VALUES = 10;

/** An attribute of the map as PATCH writes it: a plain value, an object of sub-attributes, a list. */
export interface Attribute {
  urn?: string;
  /** Its name as the map spells it. */
  attr: string;
  kind: 'simple' | 'complex' | 'multi';
}

const ATTRIBUTES = new Map<string, Attribute>([['|active', { attr: 'active', kind: 'simple' }]]);
for (const { path } of SCIM_FIELDS) {
  const kind = path.type ? 'multi' : path.sub ? 'complex' : 'simple';
  const attribute = { ...(path.urn ? { urn: path.urn } : {}), attr: path.attr, kind } as const;
  ATTRIBUTES.set(`${path.urn ?? ''}|${path.attr.toLowerCase()}`, attribute);
}

/**
 * The attribute `name` of a schema (`urn` absent: the core one) in the map, else undefined.
 * The Roster extension's attributes are the custom fields: any name is one (the users service
 * validates it as a custom field id).
 */
export function attributeOf(urn: string | undefined, name: string): Attribute | undefined {
  if (urn === ROSTER_USER) return { urn, attr: name, kind: 'simple' };
  return ATTRIBUTES.get(`${urn ?? ''}|${name.toLowerCase()}`);
}

/** The multi-valued attribute holding more than MAX_VALUES values, else undefined. */
export function overfullAttribute(resource: unknown): string | undefined {
  return MULTI_VALUED.find(({ urn, attr }) => {
    const value = prop(urn ? prop(resource, urn) : resource, attr);
    return Array.isArray(value) && value.length > MAX_VALUES;
  })?.attr;
}

/**
 * What is wrong with the shape of a resource's values the map reads, else undefined: a value
 * of the wrong kind would otherwise read as absent, and be dropped (or cleared) without a word.
 */
export function shapeProblem(resource: unknown): string | undefined {
  for (const { urn, attr } of MULTI_VALUED) {
    const value = prop(urn ? prop(resource, urn) : resource, attr);
    if (value != null && !(Array.isArray(value) && value.every(isObject))) {
      return `${attr} must be a list of objects, e.g. [{"type": "work", "value": "…"}]`;
    }
  }
  const active = prop(resource, 'active');
  if (active != null && activeValue(active) === undefined) {
    return `active must be true or false, not ${JSON.stringify(active)}`;
  }
  return undefined;
}
