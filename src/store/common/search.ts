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
