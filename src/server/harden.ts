/**
 * Hardening of the service process, applied by `roster serve` before the service loads.
 *
 * `Object.prototype.__proto__` goes, as `node --disable-proto=delete` would remove it: then
 * `o.__proto__` is an own property like any other, and a path walker that got past the key
 * guard (contract/safe-keys.ts) with `__proto__` reads undefined instead of Object.prototype,
 * so `o.__proto__.x = v` fails rather than polluting every object of the process. The flag
 * itself cannot be relied on: `roster` is a shell script around `node bin/roster.js`, which can
 * be run without it, and a re-exec would double start-up; NODE_OPTIONS reaches children only.
 * Object literals' `{__proto__: p}` and Object.getPrototypeOf/setPrototypeOf are unaffected.
 */
export function deleteProtoAccessor(): void {
  Reflect.deleteProperty(Object.prototype, '__proto__');
}

/**
 * The accessor as the process had it before any serve took it away: an in-process serve (a
 * test's) leaves the test process without it, and the next test puts it back from here.
 */
export const PROTO_ACCESSOR = Object.getOwnPropertyDescriptor(Object.prototype, '__proto__');
