/**
 * Parsed JSON or YAML holds `__proto__` as an own key (JSON.parse makes it one), harmless until
 * something copies or assigns it onto another object. Files and inputs a person gives are
 * refused at read when any key at any depth is forbidden (safe-keys.ts), so no later copy,
 * merge or schema parse ever meets one.
 */
import { isForbiddenKey } from './safe-keys.js';

/** What a refusal says about such a key, the same wherever it was given. */
export const forbiddenKeyText = (key: string) =>
  `the key '${key}' is not allowed (__proto__, constructor and prototype never become property names)`;

/**
 * The path (`rows.3.changes.__proto__`) of the first forbidden key in `value`, if any. A loop,
 * not recursion: a hostile file nested 100,000 deep is refused, not a stack overflow.
 */
export function forbiddenKeyIn(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const entries = Array.isArray(node) ? [...node.entries()] : Object.entries(node);
    for (const [key, inner] of entries) {
      const path = at === '' ? String(key) : `${at}.${key}`;
      if (typeof key === 'string' && isForbiddenKey(key)) return path;
      stack.push([inner, path]);
    }
  }
  return undefined;
}
