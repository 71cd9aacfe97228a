/**
 * `--fields a,b.c`: dotted paths into the objects a command prints. Tables and CSV get one
 * column per path; JSON gets the same object cut down to those paths (same nesting), so a jq
 * filter written for the full object still works.
 */
import { splitList } from '../../contract/list.js';
import { usageError } from '../errors.js';
import type { Column } from './render.js';

/** Splits and checks `--fields`; `known` are the valid first segments, if the shape is fixed. */
export function parseFields(value: string, known?: readonly string[]): string[] {
  const fields = splitList(value);
  if (fields.length === 0) throw usageError('--fields: name at least one field, e.g. id,email');
  for (const field of fields) {
    const parts = field.split('.');
    if (parts.some((p) => p === '')) throw usageError(`--fields: '${field}' is not a field path`);
    if (known && !known.includes(parts[0]!)) {
      throw usageError(`--fields: unknown field '${field}'; fields are ${known.join(', ')}`);
    }
  }
  return fields;
}

/** The value at a dotted path, or undefined. */
export function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A copy of `value` holding only `paths`, nested as in the original; absent paths are null. */
export function pickPaths(value: unknown, paths: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    const keys = path.split('.');
    let target = out;
    for (const key of keys.slice(0, -1)) {
      const next = target[key];
      target[key] = next !== null && typeof next === 'object' ? next : {};
      target = target[key] as Record<string, unknown>;
    }
    target[keys.at(-1)!] = getPath(value, path) ?? null;
  }
  return out;
}

/** One column per path, headed by the path. */
export const pathColumns = <T>(paths: string[]): Column<T>[] =>
  paths.map((path) => ({ header: path, value: (row: T) => getPath(row, path) }));

/** Every leaf of an object as [dotted path, value], for a one-record table. */
export function leaves(value: unknown, prefix = ''): [string, unknown][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [[prefix, value]];
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return prefix ? [[prefix, null]] : [];
  return entries.flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}
