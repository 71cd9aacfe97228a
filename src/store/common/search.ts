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

/** The letters the fold spells out after lower-casing (no decomposition strips them to ASCII). */
const FOLDED_SPELLED: readonly (readonly [string, string])[] = [
  ['ß', 'ss'],
  ['ø', 'o'],
  ['đ', 'd'],
  ['ł', 'l'],
  ['ı', 'i'],
  ['æ', 'ae'],
  ['œ', 'oe'],
];

/**
 * A character the fold may change other than by case (printable ASCII decomposes to itself and
 * has no marks): most values have none, and skip the Unicode steps (searchEntry of a seeded user,
 * a third of them with a non-ASCII letter: 6.8 -> 3.1 us).
 */
const BEYOND_ASCII = /[^ -~]/;

/**
 * The documented fold (docs/decisions.md, "Search") in JavaScript: compatibility-decomposed,
 * marks dropped, lower-cased, FOLDED_SPELLED spelled out. SQLite keeps each user's words folded
 * so (searchEntry, migration 20), so that a search walking an order's index checks a row
 * without asking FTS5 (users-list.ts wordsWalk); the full-text index folds with unicode61, which
 * test/store/search-semantics.test.ts holds to the same answers.
 */
export const fold = (text: string): string =>
  BEYOND_ASCII.test(text)
    ? FOLDED_SPELLED.reduce(
        (t, [letter, spelled]) => t.replaceAll(letter, spelled),
        text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase(),
      )
    : text.toLowerCase();

/**
 * A user's words as SQLite's `users.words` holds them: every folded word of SEARCH_FIELDS'
 * values once, each with a space before it and one at the end, so that "a word begins with
 * p" is "the entry holds ' ' + p" (entryProbes).
 */
export function searchEntry(values: readonly unknown[]): string {
  const words = new Set<string>();
  for (const v of values) {
    if (typeof v !== 'string') continue;
    for (const w of fold(v).match(/[\p{L}\p{N}]+/gu) ?? []) words.add(w);
  }
  return words.size === 0 ? ' ' : ` ${[...words].join(' ')} `;
}

/** A user query's words as searchEntry's substrings: one each, all of them required. */
export const entryProbes = (query: string): string[] =>
  searchWords(fold(query)).map((w) => ` ${w}`);
