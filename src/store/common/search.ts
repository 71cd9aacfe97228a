/**
 * The words of a free-text user query, as every backend searches them: runs of letters and
 * digits, each a required word prefix, at most 16. Anything else (FTS or tsquery syntax in user
 * input: `AND`, `*`, `"`, `&`, `:`) separates words and is never interpreted.
 */
export function searchWords(query: string): string[] {
  return (query.match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 16);
}
