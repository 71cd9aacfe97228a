/**
 * Parsed JSON holds `__proto__` as an own key (JSON.parse makes it one), harmless until
 * something copies or assigns it onto another object. Files and inputs a person gives are
 * refused at read when any key at any depth is forbidden (safe-keys.ts, the one rule), so no
 * later copy, merge or schema parse ever meets one.
 */
export { forbiddenKeyIn } from './safe-keys.js';

/** What a refusal says about such a key, the same wherever it was given. */
export const forbiddenKeyText = (key: string) =>
  `the key '${key}' is not allowed (__proto__, constructor and prototype never become property names)`;
