/**
 * PATCH (RFC 7644 §3.5.2): a body's operations checked, normalised for what identity providers
 * really send and resolved against the attribute map, all before anything applies
 * (patch-apply.ts applies them). What the result changed is the update (resource.ts
 * `scimChanges`).
 *
 * Our own, not scim-patch: that library walks any path onto the resource, `__proto__.x` and
 * `constructor.prototype.x` included, and polluted the process (docs/decisions.md, "SCIM
 * PATCH"). Here a path resolves to an attribute of the map or to nothing (an attribute Roster
 * does not keep is ignored, as before), and a path or a value key naming a prototype is 400.
 *
 * Normalised here, because IdPs differ: Entra ID capitalises ops (`Replace`), sends booleans as
 * strings (`"active": "False"`) and pathless values whose keys are paths, filtered ones too
 * (`emails[type eq "work"].value`); `Operations` is read whatever its case.
 */
import { forbiddenKeyIn, forbiddenSegment } from '../../contract/safe-keys.js';
import {
  type Attribute,
  activeValue,
  attributeOf,
  CORE_USER,
  ENTERPRISE_USER,
  PATCH_OP,
  prop,
  ROSTER_USER,
} from './attributes.js';
import { ScimError } from './errors.js';
import { valueFilter } from './filter.js';

/** Operations one PATCH may carry (ServiceProviderConfig says so): IdPs send a handful. */
export const MAX_OPERATIONS = 100;

export type PatchOp = 'add' | 'replace' | 'remove';

/** Where an operation applies: an attribute of the map, one value filter, a sub-attribute. */
export interface Target extends Attribute {
  filter?: ReturnType<typeof valueFilter>;
  sub?: string;
}

export interface Operation {
  op: PatchOp;
  target: Target;
  value: unknown;
  /** Where the request said it (`Operations[2].value.title`), for messages. */
  at: string;
}

const syntax = (message: string) => new ScimError('validation', 'invalidSyntax', message);
const badPath = (message: string) => new ScimError('validation', 'invalidPath', message);
const badValue = (message: string) => new ScimError('validation', 'invalidValue', message);

/** A filter's quoted values are data (`emails[value eq "constructor@x"]`), never keys. */
const unquoted = (path: string) => path.replace(/"(?:[^"\\]|\\.)*"/g, '""');
const namesPrototype = (path: string) => forbiddenSegment(unquoted(path));

const NAME = '[A-Za-z0-9_$-]+';
/** `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub` (after any schema URN). */
const ATTR_PATH = new RegExp(`^(${NAME})(?:\\[(.+)\\])?(?:\\.(${NAME}))?$`, 's');
const SCHEMAS = [CORE_USER, ENTERPRISE_USER, ROSTER_USER];

/**
 * A path's schema and the rest: `urn` undefined is the core schema, `rest` '' the schema's
 * whole object; undefined when the path names a schema Roster does not keep.
 */
function splitSchema(path: string): { urn?: string; rest: string } | undefined {
  const lower = path.toLowerCase();
  if (!lower.startsWith('urn:')) return { rest: path };
  for (const schema of SCHEMAS) {
    const s = schema.toLowerCase();
    if (lower !== s && !lower.startsWith(`${s}:`)) continue;
    const rest = path.slice(schema.length + 1);
    return schema === CORE_USER ? { rest } : { urn: schema, rest };
  }
  return undefined;
}

/** The target of a path, or undefined for an attribute outside the map (ignored). */
function targetOf(path: string, at: string): Target | undefined {
  const split = splitSchema(path);
  if (!split) return undefined;
  const m = ATTR_PATH.exec(split.rest);
  if (!m)
    throw badPath(`${at}: '${path}' is not an attribute path (attr, attr.sub, attr[filter].sub)`);
  const [, name, filterText, sub] = m as unknown as [string, string, string?, string?];
  const attribute = attributeOf(split.urn, name);
  if (!attribute) return undefined;
  if (filterText !== undefined && attribute.kind !== 'multi') {
    throw badPath(`${at}: ${attribute.attr} has one value: it takes no [filter]`);
  }
  if (sub !== undefined && attribute.kind === 'simple') {
    throw badPath(`${at}: ${attribute.attr} has no sub-attributes`);
  }
  let filter: Target['filter'];
  try {
    filter = filterText === undefined ? undefined : valueFilter(attribute.attr, filterText);
  } catch (err) {
    throw badPath(`${at}: ${(err as Error).message}`);
  }
  return { ...attribute, ...(filter ? { filter } : {}), ...(sub ? { sub } : {}) };
}

/** `active` as a boolean where an IdP sent a string. */
const fixed = (t: Target, value: unknown) =>
  t.attr === 'active' && !t.urn ? (activeValue(value) ?? value) : value;

/** The operations a value of attributes makes: each key a path (dotted, filtered, URN). */
function expand(op: PatchOp, urn: string | undefined, value: unknown, at: string): Operation[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badValue(`${at}: without a path, the value is an object of attributes`);
  }
  return Object.entries(value).flatMap(([key, v]) => {
    const path = urn ? `${urn}:${key}` : key;
    return resolve(op, path, v, `${at}.value.${key}`);
  });
}

function resolve(op: PatchOp, path: string, value: unknown, at: string): Operation[] {
  const split = splitSchema(path);
  // A schema's whole object (`{"urn:…:enterprise:2.0:User": {"department": "x"}}`).
  if (split?.rest === '') return expand(op, split.urn, value, at);
  const target = targetOf(path, at);
  return target ? [{ op, target, value: fixed(target, value), at }] : [];
}

/** Refuses what names a prototype anywhere in an operation, before anything is resolved. */
function guard(o: unknown, at: string): void {
  const path = prop(o, 'path');
  const name = typeof path === 'string' ? namesPrototype(path) : undefined;
  if (name !== undefined) {
    throw badPath(`${at}.path '${path}' names '${name}', which is never an attribute`);
  }
  const key = forbiddenKeyIn(prop(o, 'value'), (k) => namesPrototype(k) !== undefined);
  if (key !== undefined) {
    throw badValue(`${at}.value holds the key '${key}', which is never an attribute`);
  }
}

/** A PatchOp body's operations, resolved; 400 (nothing applied) when one cannot apply. */
export function patchOperations(body: unknown): Operation[] {
  const schemas = prop(body, 'schemas');
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_OP)) {
    throw syntax(`a PATCH body names the schema ${PATCH_OP}`);
  }
  const operations = prop(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw syntax('a PATCH body has a non-empty Operations array');
  }
  if (operations.length > MAX_OPERATIONS) {
    throw new ScimError(
      'validation',
      'tooMany',
      `a PATCH carries at most ${MAX_OPERATIONS} operations (this one ${operations.length}): send the rest in another PATCH`,
    );
  }
  operations.forEach((o, i) => {
    guard(o, `Operations[${i}]`);
  });
  return operations.flatMap((o, i) => {
    const at = `Operations[${i}]`;
    const op = String(prop(o, 'op') ?? '').toLowerCase();
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw syntax(`${at}.op must be add, replace or remove`);
    }
    const path = prop(o, 'path');
    if (path !== undefined && typeof path !== 'string') {
      throw badPath(`${at}.path must be a string`);
    }
    if (op === 'remove' && !path) {
      throw new ScimError('validation', 'noTarget', `${at}: remove needs a path`);
    }
    const value = prop(o, 'value');
    return path === undefined ? expand(op, undefined, value, at) : resolve(op, path, value, at);
  });
}
