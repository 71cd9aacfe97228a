/**
 * `1 photo`, `2 photos`: a count and its noun, singular for one. English only, as every message
 * is; `many` for a plural that is not the noun plus "s" (`1 name is`, `2 names are`).
 */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
