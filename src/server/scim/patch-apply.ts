/**
 * Resolved PATCH operations (patch.ts) applied to a copy of a user's SCIM resource, as RFC 7644
 * §3.5.2 says: `add` to a list appends, `replace` of a list replaces it, either on a complex
 * attribute sets the sub-attributes given and leaves the others; an `add` or `replace` on a
 * filtered path that matches no value makes that value (Entra ID relies on it).
 *
 * Every write is an own property (`setOwn`), so even a key that got past patch.ts's guard is a
 * key, never a prototype. Each operation walks one attribute's values, of which there are at
 * most MAX_VALUES: a request's cost grows with its operations, never with their square.
 */
import { setOwn } from '../../contract/safe-keys.js';
import { MAX_VALUES, SCIM_FIELDS } from './attributes.js';
import { ScimError } from './errors.js';
import type { Operation, Target } from './patch.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The key an object holds for `name` compared without case (attribute names are caseless). */
const keyOf = (o: Obj, name: string) =>
  Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;

const put = (o: Obj, name: string, value: unknown) => setOwn(o, keyOf(o, name), value);
const drop = (o: Obj, name: string) => {
  delete o[keyOf(o, name)];
};

/** The object under `name` in `o`, made when `create` and missing (or not an object). */
function objectAt(o: Obj, name: string, create: boolean): Obj | undefined {
  const inner = o[keyOf(o, name)];
  if (isObject(inner) || !create) return isObject(inner) ? inner : undefined;
  const made: Obj = {};
  put(o, name, made);
  return made;
}

/**
 * Multi-valued attributes that hold a login identity (emails): a `replace` on a filtered path
 * that matches none of their values is 400 noTarget (RFC 7644 §3.5.2.3), never a login made up.
 */
const LOGIN_LISTS = new Set(
  SCIM_FIELDS.filter((m) => m.field.identity && m.path.type).map((m) => m.path.attr.toLowerCase()),
);

function checkCount(t: Target, list: unknown[]): unknown[] {
  if (list.length > MAX_VALUES) {
    throw new ScimError(
      'validation',
      'tooMany',
      `${t.attr} holds at most ${MAX_VALUES} values (this PATCH makes ${list.length})`,
    );
  }
  return list;
}

/** The value a filter's `eq` comparisons describe (`type eq "work"` → {type: "work"}). */
function seedOf(t: Target, at: string): Obj {
  const ast = t.filter!.ast;
  const parts = ast.op === 'and' ? ast.filters : [ast];
  const seed: Obj = {};
  for (const p of parts) {
    if (p.op !== 'eq') {
      throw new ScimError(
        'validation',
        'noTarget',
        `${at}: no value of ${t.attr} matches, and a filter of eq comparisons only could make one`,
      );
    }
    setOwn(seed, p.attrPath, p.compValue);
  }
  return seed;
}

/** A multi-valued attribute's values after one operation; undefined: the attribute goes. */
function listAfter(current: unknown, { op, target: t, value, at }: Operation): unknown {
  const list: unknown[] = Array.isArray(current) ? [...current] : [];
  if (!t.filter && !t.sub) {
    if (op === 'remove') return undefined;
    // A value that is no list of objects is refused after (resource.ts shapeProblem).
    const values = Array.isArray(value) ? value : isObject(value) ? [value] : value;
    if (!Array.isArray(values)) return values;
    return checkCount(t, op === 'add' ? [...list, ...values] : values);
  }
  const chosen = t.filter ? list.filter((e) => isObject(e) && t.filter!.matches(e)) : list;
  if (!t.filter && chosen.length > 1) {
    throw new ScimError(
      'validation',
      'invalidPath',
      `${at}: ${t.attr} has ${chosen.length} values: name one, e.g. ${t.attr}[type eq "work"].${t.sub}`,
    );
  }
  const entries = chosen.filter(isObject);
  if (op === 'remove') {
    if (t.sub) for (const e of entries) drop(e, t.sub);
    const removed = new Set<unknown>(t.sub ? [] : entries);
    return list.filter((e) => !removed.has(e));
  }
  if (!t.sub && !isObject(value)) {
    throw new ScimError('validation', 'invalidValue', `${at}: a value of ${t.attr} is an object`);
  }
  if (entries.length === 0) {
    if (op === 'replace' && t.filter && (!t.sub || LOGIN_LISTS.has(t.attr.toLowerCase()))) {
      throw new ScimError(
        'validation',
        'noTarget',
        `${at}: no value of ${t.attr} matches the path's filter, so there is nothing to replace (add makes one)`,
      );
    }
    const made = t.filter ? seedOf(t, at) : {};
    if (t.sub) put(made, t.sub, value);
    else for (const [k, v] of Object.entries(value as Obj)) put(made, k, v);
    return checkCount(t, [...list, made]);
  }
  for (const e of entries) {
    if (t.sub) put(e, t.sub, value);
    else if (op === 'add') for (const [k, v] of Object.entries(value as Obj)) put(e, k, v);
    else list[list.indexOf(e)] = { ...(value as Obj) };
  }
  return list;
}

function applyOne(resource: Obj, o: Operation): void {
  const { op, target: t, value, at } = o;
  const holder = t.urn ? objectAt(resource, t.urn, op !== 'remove') : resource;
  if (!holder) return;
  if (t.kind === 'multi') {
    const after = listAfter(holder[keyOf(holder, t.attr)], o);
    if (after === undefined) drop(holder, t.attr);
    else put(holder, t.attr, after);
  } else if (op === 'remove') {
    const inner = t.sub ? objectAt(holder, t.attr, false) : holder;
    if (inner) drop(inner, t.sub ?? t.attr);
  } else if (t.kind === 'simple' || t.sub) {
    put(t.sub ? objectAt(holder, t.attr, true)! : holder, t.sub ?? t.attr, value);
  } else if (isObject(value)) {
    // A complex attribute: the sub-attributes given are set, the others kept (§3.5.2.3).
    const inner = objectAt(holder, t.attr, true)!;
    for (const [k, v] of Object.entries(value)) put(inner, k, v);
  } else {
    throw new ScimError(
      'validation',
      'invalidValue',
      `${at}: ${t.attr} takes an object of its sub-attributes`,
    );
  }
}

/** The resource after the operations (a copy; the one given is left as it is). */
export function applyPatch(resource: Obj, operations: readonly Operation[]): Obj {
  const out = structuredClone(resource);
  for (const o of operations) applyOne(out, o);
  return out;
}
