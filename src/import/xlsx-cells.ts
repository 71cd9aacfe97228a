/**
 * A workbook cell as the text its user sees, locale aside: text as it is; a number in its
 * format's digits (`00000` keeps 00123's zeros, `0.00` two decimals, General up to Excel's 15
 * significant digits, never in scientific notation for a whole number such as a phone number);
 * a date as ISO 8601 (2024-03-01, with the time when it has one); TRUE/FALSE; a formula as its
 * cached value. Decimal points are always '.', grouping is dropped: a German file's "1.234,50"
 * reads 1234.50, the same in every locale. A formula without a cached value, or an error value
 * (#N/A), is a problem of its row, not an empty cell.
 */

/** The cell's text, or why it cannot be read (the row becomes an error). */
export type CellText = string | { problem: string };

/** exceljs's test for a date format (utils.isDateFmt), for formula values it leaves as numbers. */
export function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  const plain = format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, '');
  return /[ymdhMsb]+/.test(plain);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A date as ISO 8601: the day alone at midnight, else to the second (Excel keeps no zone). */
export function isoDate(date: Date): string {
  const t = new Date(Math.round(date.getTime() / 1000) * 1000);
  const day = `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
  if (t.getUTCHours() === 0 && t.getUTCMinutes() === 0 && t.getUTCSeconds() === 0) return day;
  return `${day}T${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
}

/** Excel's serial day number as a date (1900 system with its leap-year bug, or 1904). */
export function serialDate(serial: number, date1904: boolean): Date {
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  return new Date(epoch + Math.round(serial * 86_400_000));
}

/** A number as its format shows it (first section; literals, colours and locales stripped). */
export function numberText(value: number, format?: string): string {
  const section = (format ?? '')
    .split(';')[0]!
    .replace(/\[[^\]]*]/g, '')
    .replace(/"[^"]*"|\\.|_.|\*./g, '')
    .trim();
  if (/^0+$/.test(section) && Number.isInteger(value)) {
    const digits = String(Math.abs(value)).padStart(section.length, '0');
    return value < 0 ? `-${digits}` : digits;
  }
  const fixed = /^[#,0]*0(?:\.(0+))?$/.exec(section);
  if (fixed) return value.toFixed(fixed[1]?.length ?? 0);
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return value.toFixed(0);
  return String(Number(value.toPrecision(15)));
}

/** A cell as the sheet's XML has it (xlsx-sheet.ts): its type, raw value and format. */
export interface RawCell {
  /** The `t` attribute: s (shared string), inlineStr, str, b, e, d, n (or none: a number). */
  type: string | undefined;
  /** The text of its `<v>` (or of its inline string), undefined without one. */
  value: string | undefined;
  /** It has a `<f>`: the value is the formula's cached result. */
  formula: boolean;
  /** Its style's number format, and whether that format shows a date. */
  numFmt: string | undefined;
  isDate: boolean;
  address: string;
}

/** The shared-strings table (xlsx-strings.ts): the `index`th string, undefined beyond it. */
export interface StringTable {
  get(index: number): string | undefined;
}

/** The cell's text, or why its row cannot be read. `shared` is the shared-strings table. */
export function cellText(cell: RawCell, shared: StringTable, date1904: boolean): CellText {
  const { type, value } = cell;
  if (value === undefined) {
    if (!cell.formula) return '';
    return {
      problem: `cell ${cell.address} is a formula without a saved value (or with an error): open the file in Excel and save it again, or replace the formula by its value`,
    };
  }
  switch (type) {
    case 's':
      return shared.get(Number.parseInt(value, 10)) ?? '';
    case 'inlineStr':
    case 'str':
      return value;
    case 'd':
      return value;
    case 'b':
      return Number.parseInt(value, 10) !== 0 ? 'TRUE' : 'FALSE';
    case 'e':
      if (cell.formula) return cellText({ ...cell, value: undefined }, shared, date1904);
      return { problem: `cell ${cell.address} holds the error ${value}` };
  }
  const n = Number.parseFloat(value);
  if (cell.formula && Number.isNaN(n))
    return cellText({ ...cell, value: undefined }, shared, date1904);
  if (cell.isDate) return isoDate(serialDate(n, date1904));
  return numberText(n, cell.numFmt);
}
