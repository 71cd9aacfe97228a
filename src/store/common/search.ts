/** The columns a search reads, each split into words, on both backends (docs/decisions.md). */
export const SEARCH_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'user_name',
  'position',
  'department',
  'location',
  'phone',
] as const;

/**
 * Letters that fold to others without a decomposition to strip a mark from (docs/decisions.md,
 * "Search"): PostgreSQL's unaccent spells them so, SQLite's unicode61 tokenizer keeps them as
 * they are, so the SQLite side maps them itself, in its full-text entries and in the query.
 */
export const SPELLED_OUT: readonly (readonly [string, string])[] = [
  ['ß', 'ss'],
  ['ø', 'o'],
  ['Ø', 'o'],
  ['đ', 'd'],
  ['Đ', 'd'],
  ['ł', 'l'],
  ['Ł', 'l'],
  ['æ', 'ae'],
  ['Æ', 'ae'],
  ['œ', 'oe'],
  ['Œ', 'oe'],
];

/** A text with SPELLED_OUT's letters spelled out (the rest of the fold is the engine's). */
export const spellOut = (text: string): string =>
  SPELLED_OUT.reduce((t, [letter, spelled]) => t.replaceAll(letter, spelled), text);

/**
 * The words of a free-text user query, as every backend searches them: runs of letters and
 * digits, each a required word prefix, at most 16. Anything else (FTS or tsquery syntax in user
 * input: `AND`, `*`, `"`, `&`, `:`) separates words and is never interpreted.
 */
export function searchWords(query: string): string[] {
  return (query.match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 16);
}

/**
 * A search's total from a count of its matches: that count up to `upTo`, and past it `upTo`
 * as a lower bound (`totalExact: false`). Without `upTo` the count is exact.
 */
export function cappedTotal(
  matches: number,
  upTo: number | undefined,
): { total: number; totalExact?: false } {
  return upTo !== undefined && matches > upTo
    ? { total: upTo, totalExact: false }
    : { total: matches };
}
