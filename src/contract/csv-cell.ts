/**
 * CSV injection (OWASP): a spreadsheet runs a cell that starts with `=`, `@`, a tab or CR, or
 * with `+`/`-`, as a formula. Such a cell is written with a leading `'`, unless a `+`/`-` starts
 * a plausible number or phone number (`+49 89 1234-0`, `-42`). A cell that starts with `'` gets
 * one more, so reading removes exactly one `'` and export → import is a no-op. One rule for
 * `users export`, `-o csv` and `users import`.
 */
const FORMULA = /^[=@\t\r]/;
const SIGNED = /^[+-]/;
const NUMBER_OR_PHONE = /^[+-]?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[\d ()./-]*\d[\d ()./-]*)$/;

const needsQuote = (s: string) =>
  FORMULA.test(s) || s.startsWith("'") || (SIGNED.test(s) && !NUMBER_OR_PHONE.test(s));

/** The cell to write for `value`. */
export const toCsvCell = (value: string): string => (needsQuote(value) ? `'${value}` : value);

/** The value a cell written by `toCsvCell` holds. */
export function fromCsvCell(cell: string): string {
  return cell.startsWith("'") && needsQuote(cell.slice(1)) ? cell.slice(1) : cell;
}
