/**
 * `--set key=value` / `--unset key` → a nested v3 body. Keys are a user field's name (`firstName`
 * means `profile.firstName`, `locale` means `config.locale`: contract/user-fields.ts) or a dotted
 * path (`profile.costCenter=CC-1`). Values are strings; `--unset` sends null (clears the field).
 */
import { forbiddenKeyText, forbiddenSegment } from '../../../contract/safe-keys.js';
import { roleName } from '../../../contract/user.js';
import { userField } from '../../../contract/user-fields.js';
import { usageError } from '../../errors.js';

export type Body = Record<string, unknown>;

export const resolveKey = (key: string): string => userField(key)?.body ?? key;

function assign(body: Body, path: string, value: unknown, flag: string) {
  const keys = path.split('.');
  if (keys.some((k) => k === '')) throw usageError(`${flag}: '${path}' is not a field path`);
  const bad = forbiddenSegment(path);
  if (bad !== undefined) throw usageError(`${flag} ${path}: ${forbiddenKeyText(bad)}`);
  let target = body;
  for (const [i, key] of keys.slice(0, -1).entries()) {
    const next = Object.hasOwn(target, key) ? target[key] : undefined;
    // Objects made from a person's keys have no prototype to reach.
    if (next === undefined) target[key] = Object.create(null);
    else if (next === null || typeof next !== 'object') {
      throw usageError(`${flag}: '${path}' conflicts with '${keys.slice(0, i + 1).join('.')}'`);
    }
    target = target[key] as Body;
  }
  const last = keys.at(-1)!;
  if (Object.hasOwn(target, last) && target[last] !== null && typeof target[last] === 'object') {
    throw usageError(`${flag}: '${path}' conflicts with the fields under it`);
  }
  // A role in any case is that role (contract/user.ts roleName), as in an import.
  target[last] = path === 'role' && typeof value === 'string' ? roleName(value) : value;
}

/** Sets a user field (by its table name, or a dotted path) in `body`, as `--set` does. */
export function putField(body: Body, key: string, value: unknown, flag = '--set'): Body {
  assign(body, resolveKey(key), value, flag);
  return body;
}

/** Merges `--set`/`--unset` into `body` (which may hold values from other flags). */
export function applySets(body: Body, sets: string[] = [], unsets: string[] = []): Body {
  const seen = new Set<string>();
  for (const pair of sets) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw usageError(`--set expects key=value, e.g. profile.position=CTO; got '${pair}'`);
    const key = resolveKey(pair.slice(0, at).trim());
    seen.add(key);
    assign(body, key, pair.slice(at + 1), '--set');
  }
  for (const raw of unsets) {
    const key = resolveKey(raw.trim());
    if (seen.has(key)) throw usageError(`--unset ${raw}: the same field is also given to --set`);
    assign(body, key, null, '--unset');
  }
  return body;
}
