/**
 * SCIM filters (RFC 7644 §3.4.2.2): parsed by scim2-parse-filter, then checked against the
 * attributes Roster filters on and evaluated here, because the library's own tester compares
 * every string case-exactly (userName and emails must compare without case) and reads
 * `emails[type eq "work"].value eq "x"` as two independent conditions on the list.
 */
import {
  type Compare,
  type Filter,
  type LogExp,
  type NotFilter,
  parse,
  type Suffix,
  type ValuePath,
} from 'scim2-parse-filter';
import { forbiddenSegment } from '../../contract/safe-keys.js';
import { activeValue, prop, SCIM_FIELDS } from './attributes.js';
import { ScimError } from './errors.js';
import { filterProblem } from './filter-errors.js';

type Obj = Record<string, unknown>;

/** Filterable paths (lower case) → whether they compare case-exactly, or as timestamps. */
const COMPARISON = new Map<string, 'exact' | 'caseless' | 'time' | 'boolean'>([
  ['id', 'exact'],
  ['active', 'boolean'],
  ['meta.created', 'time'],
  ['meta.lastmodified', 'time'],
  ['emails.primary', 'boolean'],
]);
for (const m of SCIM_FIELDS) {
  if (!m.field.read) continue;
  const exact = m.field.identity === 'caseExact' ? 'exact' : 'caseless';
  const { urn, attr, sub, type } = m.path;
  const base = `${urn ? `${urn}:` : ''}${attr}`.toLowerCase();
  COMPARISON.set(sub ? `${base}.${sub.toLowerCase()}` : base, exact);
  if (type) COMPARISON.set(`${base}.type`, 'caseless');
}

const invalid = (message: string) => new ScimError('validation', 'invalidFilter', message);

export interface ParsedFilter {
  ast: Filter;
  matches: (resource: Obj) => boolean;
}

/** A filter as a predicate over SCIM Users; 400 invalidFilter when it is not one Roster reads. */
export function parseFilter(text: string): ParsedFilter {
  let ast: Filter;
  try {
    ast = normalise(parse(text));
  } catch (err) {
    if (err instanceof ScimError) throw err;
    throw invalid(
      `the filter '${text}' is not a valid SCIM filter: ${filterProblem(text, (err as Error).message)}`,
    );
  }
  check(ast, '');
  return { ast, matches: (r) => test(ast, r) };
}

/**
 * The filter of a PATCH path's value path (`emails[type eq "work"]`: attr `emails`, text
 * `type eq "work"`) as a test of one of the attribute's values; 400 invalidFilter as a filter.
 */
export function valueFilter(attr: string, text: string) {
  const { ast } = parseFilter(`${attr}[${text}]`);
  if (ast.op !== '[]') throw invalid(`'${text}' is not one filter of the values of ${attr}`);
  const { valFilter } = ast;
  return { ast: valFilter, matches: (entry: unknown) => test(valFilter, entry, `${attr}.`) };
}

/** `attr[F].sub op v` arrives as `attr[F] and attr.sub op v`: one condition on one entry. */
function normalise(f: Filter): Filter {
  if (f.op === 'and' || f.op === 'or') {
    const filters = f.filters.map(normalise);
    const [first, second] = filters;
    if (
      f.op === 'and' &&
      filters.length === 2 &&
      first?.op === '[]' &&
      second &&
      'attrPath' in second &&
      second.op !== '[]' &&
      second.attrPath.toLowerCase().startsWith(`${first.attrPath.toLowerCase()}.`)
    ) {
      const inner = { ...second, attrPath: second.attrPath.slice(first.attrPath.length + 1) };
      return { ...first, valFilter: { op: 'and', filters: [first.valFilter, inner] } };
    }
    return { ...f, filters };
  }
  if (f.op === 'not') return { ...f, filter: normalise(f.filter) };
  return f;
}

/** An attribute path that names a prototype is refused as such, before it is looked up. */
function checkName(attrPath: string): void {
  const name = forbiddenSegment(attrPath);
  if (name !== undefined) {
    throw invalid(
      `'${attrPath}' names '${name}', which is never an attribute: filter on attributes`,
    );
  }
}

function check(f: Filter, prefix: string): void {
  if ('attrPath' in f) checkName(f.attrPath);
  if (f.op === 'and' || f.op === 'or') {
    for (const g of (f as LogExp).filters) check(g, prefix);
    return;
  }
  if (f.op === 'not') {
    check((f as NotFilter).filter, prefix);
    return;
  }
  if (f.op === '[]') {
    if (prefix) throw invalid('a value path inside a value path is not supported');
    const v = f as ValuePath;
    check(v.valFilter, `${v.attrPath}.`);
    return;
  }
  const c = f as Compare | Suffix;
  const kind = COMPARISON.get(`${prefix}${c.attrPath}`.toLowerCase());
  if (!kind) {
    throw invalid(
      `filtering on '${prefix}${c.attrPath}' is not supported; filter on ${[...COMPARISON.keys()].join(', ')}`,
    );
  }
  if (c.op === 'pr') return;
  const value = (c as Compare).compValue;
  if (kind === 'boolean') {
    if (activeValue(value) === undefined)
      throw invalid(`'${c.attrPath}' compares with true or false`);
    if (c.op !== 'eq' && c.op !== 'ne')
      throw invalid(`'${c.attrPath}' is true or false: use eq, ne or pr`);
  } else if (typeof value !== 'string') {
    throw invalid(`'${c.attrPath}' compares with a string`);
  }
}

/** Every value at a dotted path, through multi-valued attributes (any one may match). */
function valuesAt(o: unknown, path: string): unknown[] {
  const lower = path.toLowerCase();
  const urn = ['urn:'].some((u) => lower.startsWith(u)) ? path.slice(0, path.lastIndexOf(':')) : '';
  const parts = (urn ? path.slice(urn.length + 1) : path).split('.');
  let values: unknown[] = [urn ? prop(o, urn) : o];
  for (const part of parts) {
    values = values.flatMap((v) => {
      const next = prop(v, part);
      return Array.isArray(next) ? next : [next];
    });
  }
  return values.filter((v) => v !== undefined && v !== null && v !== '');
}

function compare(op: string, actual: unknown, expected: unknown, kind: string): boolean {
  if (kind === 'boolean') {
    const a = activeValue(actual);
    const e = activeValue(expected);
    return op === 'eq' ? a === e : a !== e;
  }
  if (typeof actual !== 'string' || typeof expected !== 'string') return false;
  let a: string | number = actual;
  let e: string | number = expected;
  if (kind === 'caseless') {
    a = actual.toLowerCase();
    e = expected.toLowerCase();
  } else if (kind === 'time') {
    a = Date.parse(actual);
    e = Date.parse(expected);
    if (Number.isNaN(e)) throw invalid(`'${expected}' is not a timestamp (RFC 3339)`);
  }
  switch (op) {
    case 'eq':
      return a === e;
    case 'co':
      return String(a).includes(String(e));
    case 'sw':
      return String(a).startsWith(String(e));
    case 'ew':
      return String(a).endsWith(String(e));
    case 'gt':
      return a > e;
    case 'ge':
      return a >= e;
    case 'lt':
      return a < e;
    case 'le':
      return a <= e;
    default:
      return false;
  }
}

function test(f: Filter, o: unknown, prefix = ''): boolean {
  switch (f.op) {
    case 'and':
      return f.filters.every((g) => test(g, o, prefix));
    case 'or':
      return f.filters.some((g) => test(g, o, prefix));
    case 'not':
      return !test(f.filter, o, prefix);
    case '[]': {
      const list = prop(o, f.attrPath);
      const entries = Array.isArray(list) ? list : list === undefined ? [] : [list];
      return entries.some((e) => test(f.valFilter, e, `${f.attrPath}.`));
    }
    case 'pr':
      return valuesAt(o, f.attrPath).length > 0;
    default: {
      const kind = COMPARISON.get(`${prefix}${f.attrPath}`.toLowerCase())!;
      const values = valuesAt(o, f.attrPath);
      // "ne" holds when no value equals (an absent attribute too).
      if (f.op === 'ne') return !values.some((v) => compare('eq', v, f.compValue, kind));
      return values.some((v) => compare(f.op, v, f.compValue, kind));
    }
  }
}

/** The identity keys an `eq` can be looked up by, instead of reading every user. */
export type Lookup = { key: 'id' | 'externalId' | 'userName' | 'email'; value: string };

const LOOKUPS: Record<string, Lookup['key']> = {
  id: 'id',
  externalid: 'externalId',
  username: 'userName',
};

/**
 * An indexed lookup that finds every user the filter can match (the filter is still tested
 * on what it finds), or undefined when only reading every user answers it.
 */
export function lookupOf(ast: Filter): Lookup | undefined {
  if (ast.op === 'and') {
    for (const f of ast.filters) {
      const found = lookupOf(f);
      if (found) return found;
    }
    return undefined;
  }
  if (ast.op === 'eq' && typeof ast.compValue === 'string') {
    const key = LOOKUPS[ast.attrPath.toLowerCase()];
    return key ? { key, value: ast.compValue } : undefined;
  }
  // emails[type eq "work" and value eq "x"]: the work email is the indexed one.
  if (ast.op === '[]' && ast.attrPath.toLowerCase() === 'emails' && ast.valFilter.op === 'and') {
    const [type, value] = ast.valFilter.filters;
    if (
      type?.op === 'eq' &&
      type.attrPath.toLowerCase() === 'type' &&
      String(type.compValue).toLowerCase() === 'work' &&
      value?.op === 'eq' &&
      value.attrPath.toLowerCase() === 'value' &&
      typeof value.compValue === 'string'
    ) {
      return { key: 'email', value: value.compValue };
    }
  }
  return undefined;
}
