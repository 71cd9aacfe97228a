/**
 * One CSV record as text, quoted as csv-stringify quotes with its defaults (a cell holding the
 * delimiter, a `"`, CR or LF is quoted, its `"` doubled): the export makes a million of them,
 * and csv-stringify's per-record checks and transform were a tenth of its CPU. A property test
 * holds the two to the same output (test/import/csv-line.test.ts).
 */

/** A cell as it is written between delimiters. */
export function csvField(value: string, delimiter: string): string {
  if (value.includes('"')) return `"${value.replaceAll('"', '""')}"`;
  if (value.includes(delimiter) || value.includes('\n') || value.includes('\r')) {
    return `"${value}"`;
  }
  return value;
}

/**
 * The cells as one record, without its line end. Joined, not concatenated: a string built by
 * `+=` is a tree of its parts, and the export holds 50,000 of these at a time, which the
 * garbage collector walks part by part.
 */
export const csvLine = (cells: readonly string[], delimiter: string): string =>
  cells.map((cell) => csvField(cell, delimiter)).join(delimiter);
