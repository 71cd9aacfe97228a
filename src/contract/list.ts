/**
 * A comma-separated list as people and scripts write it: parts trimmed, empty parts (a trailing
 * or doubled comma) dropped, each value once, in the order first given.
 */
export function splitList(value: string): string[] {
  return [
    ...new Set(
      value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    ),
  ];
}
