/**
 * Keys that must never become property names: assigned on a plain object, `__proto__` replaces
 * its prototype, and `constructor`/`prototype` are the way from an object to every object's
 * prototype (`a.constructor.prototype.x = 1`). Any path or key a person or a file gives is
 * checked here before it is written anywhere; in any case, since some readers fold case.
 */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** True for `__proto__`, `constructor` and `prototype`, whatever their case. */
export const isForbiddenKey = (segment: string): boolean => FORBIDDEN.has(segment.toLowerCase());

/** The first segment of a dotted path (`profile.__proto__.x`) that is a forbidden key. */
export const forbiddenSegment = (path: string): string | undefined =>
  path.split('.').find(isForbiddenKey);
