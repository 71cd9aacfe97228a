/**
 * `--fields a,b.c`: the names a table's headers show (`lastName`, `email`) or dotted paths into
 * the objects a command prints (`profile.lastName`). Tables and CSV get one column per field,
 * headed as it was named; JSON gets the same object cut down to those paths (same nesting), so
 * a jq filter written for the full object still works.
 */
import { splitList } from '../../contract/list.js';
import { forbiddenKeyText, forbiddenSegment } from '../../contract/safe-keys.js';
import { usageError } from '../errors.js';
import type { Column } from './render.js';
import { safeText } from './text-safe.js';

/** One field asked for: as named, and the path it reads. */
export interface Field {
  name: string;
  path: string;
}

/** Short names `--fields` takes besides paths (a table's headers), each with the path it reads. */
export type FieldNames = Readonly<Record<string, string>>;

/** Edits (insert, delete, change a character) from `a` to `b`, case ignored. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let row = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const next = [i];
    for (let j = 1; j <= t.length; j++) {
      next[j] = Math.min(
        row[j]! + 1,
        next[j - 1]! + 1,
        row[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[t.length]!;
}

/** The candidate nearest to `word`, if near enough to be what was meant (a third of it, at least 2). */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = distance(word, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/**
 * Splits and checks `--fields`: each a name of `names` or a dotted path whose first segment is
 * one of `known` (when the shape is fixed). An unknown one is a usage error naming the nearest.
 */
export function parseFields(
  value: string,
  known?: readonly string[],
  names: FieldNames = {},
): Field[] {
  const given = splitList(value);
  if (given.length === 0) throw usageError('--fields: name at least one field, e.g. id,email');
  const fields: Field[] = [];
  // Names are matched in any case (EMAIL, FirstName), as a person types them.
  const nameOf = caseless(Object.keys(names));
  const knownOf = caseless(known ?? []);
  for (const typed of given) {
    const name = nameOf(typed) ?? typed;
    const [head, ...rest] = name.split('.');
    const path = Object.hasOwn(names, name)
      ? names[name]!
      : [knownOf(head!) ?? head, ...rest].join('.');
    const parts = path.split('.');
    if (parts.some((p) => p === '')) {
      throw usageError(`--fields: '${safeText(name)}' is not a field path`);
    }
    const bad = forbiddenSegment(path);
    if (bad !== undefined) throw usageError(`--fields ${safeText(name)}: ${forbiddenKeyText(bad)}`);
    if (!Object.hasOwn(names, name) && known && !known.includes(parts[0]!)) {
      const all = [...new Set([...Object.keys(names), ...known])];
      const guess = nearest(name, all) ?? nearest(parts[0]!, all);
      throw usageError(
        `--fields: unknown field '${safeText(name)}'${guess ? `; did you mean ${guess}?` : '.'} Fields are ${all.join(', ')}, or a dotted path under one`,
      );
    }
    if (!fields.some((f) => f.path === path)) fields.push({ name, path });
  }
  return fields;
}

/** Looks a word up among `words` case-insensitively, answering the word as it is spelt there. */
function caseless(words: readonly string[]): (word: string) => string | undefined {
  const byLower = new Map(words.map((w) => [w.toLowerCase(), w]));
  return (word) => byLower.get(word.toLowerCase());
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
  // Built from the paths a person named: no prototype to reach (parseFields refuses the keys).
  const out: Record<string, unknown> = Object.create(null);
  for (const path of paths) {
    const keys = path.split('.');
    let target = out;
    for (const key of keys.slice(0, -1)) {
      const next = target[key];
      target[key] = next !== null && typeof next === 'object' ? next : Object.create(null);
      target = target[key] as Record<string, unknown>;
    }
    target[keys.at(-1)!] = getPath(value, path) ?? null;
  }
  return out;
}

/** One column per field, headed as it was named. */
export const fieldColumns = <T>(fields: Field[]): Column<T>[] =>
  fields.map(({ name, path }) => ({ header: name, value: (row: T) => getPath(row, path) }));

/** Every leaf of an object as [dotted path, value], for a one-record table. */
export function leaves(value: unknown, prefix = ''): [string, unknown][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [[prefix, value]];
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return prefix ? [[prefix, null]] : [];
  return entries.flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}
