/**
 * The one rule for keys and paths given by a user (a SCIM PATCH path, a value's keys, a custom
 * profile field id, a `--set` path, a CSV header, a file's keys) that become property writes:
 * `__proto__`, `constructor` and `prototype` reach an object's prototype when walked as a path
 * (`o[a][b] = v` with a = `__proto__`, or a = `constructor` and b = `prototype`) and pollute
 * every object of the process. They are refused wherever they appear, whatever their case
 * (SCIM attribute names and several lookups here compare without case, so `__PROTO__` can be
 * folded into the real one) and even percent-encoded (a path that is decoded later).
 */

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** What a refused key is told, in a field issue's `message`. */
export const RESERVED_KEY_MESSAGE =
  'is a reserved name: __proto__, constructor and prototype are never field names';

/** What the CLI says of such a key in a path, a header or a file a person gave. */
export const forbiddenKeyText = (key: string) =>
  `the key '${key}' is not allowed (__proto__, constructor and prototype never become property names)`;

/** `%XX` decoded (repeatedly, for double encoding); malformed escapes are left as they are. */
function decoded(text: string): string {
  let out = text;
  for (let i = 0; i < 4 && out.includes('%'); i++) {
    const next = out.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    if (next === out) break;
    out = next;
  }
  return out;
}

/** Whether one key names a prototype (see above): compared without case, after decoding. */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN.has(key.toLowerCase()) || FORBIDDEN.has(decoded(key).toLowerCase());
}

/**
 * The first name in a path that is a forbidden key, else undefined. A path is split at every
 * character a name cannot hold (`.`, `:`, `[`, `]`, `/`, quotes, spaces…), so the rule holds for
 * dotted paths, URN-prefixed ones, filters in brackets and JSON pointers alike.
 */
export function forbiddenSegment(path: string): string | undefined {
  return decoded(path)
    .split(/[^A-Za-z0-9_$-]+/)
    .find((name) => FORBIDDEN.has(name.toLowerCase()));
}

/** The place of a key (`[0].name.__proto__`) for a message. */
const place = (at: string, key: string) => (at ? `${at}.${key}` : key);

/**
 * Where the first key at any depth of a JSON value (objects inside arrays too) is refused by
 * `refuse` (default: the key is a forbidden key), else undefined. Iterative, so a deeply nested
 * body cannot overflow the stack.
 */
export function forbiddenKeyIn(
  value: unknown,
  refuse: (key: string) => boolean = isForbiddenKey,
): string | undefined {
  const pending: [unknown, string][] = [[value, '']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [v, at] = next;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        pending.push([item, `${at}[${i}]`]);
      });
      continue;
    }
    // Object.keys lists an own `__proto__` (JSON.parse makes one) like any other key.
    for (const key of Object.keys(v)) {
      if (refuse(key)) return place(at, key);
      pending.push([(v as Record<string, unknown>)[key], place(at, key)]);
    }
  }
  return undefined;
}

/** An empty object without a prototype, for records keyed by what a user gave. */
export const keyedRecord = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/**
 * Sets an own property, never running an inherited setter: assigning `__proto__` to an
 * ordinary object replaces its prototype instead of making a key (the guard stays the rule;
 * this keeps a key that got past it a plain key).
 */
export function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
