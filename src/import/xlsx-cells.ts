/**
 * A workbook cell as the text its user sees, locale aside: text as it is; a number in its
 * format's digits (`00000` keeps 00123's zeros, `0.00` two decimals, General up to Excel's 15
 * significant digits, never in scientific notation for a whole number such as a phone number);
 * a date as ISO 8601 (2024-03-01, with the time when it has one); TRUE/FALSE; a formula as its
 * cached value. Decimal points are always '.', grouping is dropped: a German file's "1.234,50"
 * reads 1234.50, the same in every locale. A formula without a cached value, or an error value
 * (#N/A), is a problem of its row, not an empty cell.
 */

/** Why a cell cannot be read (the row becomes an error), else its text. */
export type CellText = { text: string } | { problem: string };

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

interface Cell {
  value: unknown;
  numFmt?: string;
  address: string;
}

const rich = (v: object): v is { richText: { text?: string }[] } =>
  'richText' in v && Array.isArray(v.richText);

/** The cell's text, or why its row cannot be read. */
export function cellText(cell: Cell, date1904: boolean): CellText {
  const { value, numFmt } = cell;
  if (value === null || value === undefined) return { text: '' };
  if (typeof value === 'string') return { text: value };
  if (typeof value === 'number') return { text: numberText(value, numFmt) };
  if (typeof value === 'boolean') return { text: value ? 'TRUE' : 'FALSE' };
  if (value instanceof Date) return { text: isoDate(value) };
  if (typeof value === 'object') {
    if (rich(value)) return { text: value.richText.map((r) => r.text ?? '').join('') };
    if ('error' in value) {
      return { problem: `cell ${cell.address} holds the error ${String(value.error)}` };
    }
    if ('formula' in value || 'sharedFormula' in value) {
      const result = (value as { result?: unknown }).result;
      if (result === undefined || (typeof result === 'number' && Number.isNaN(result))) {
        return {
          problem: `cell ${cell.address} is a formula without a saved value (or with an error): open the file in Excel and save it again, or replace the formula by its value`,
        };
      }
      if (typeof result === 'number' && isDateFormat(numFmt)) {
        return { text: isoDate(serialDate(result, date1904)) };
      }
      return cellText({ ...cell, value: result }, date1904);
    }
    if ('text' in value) return { text: String(value.text) };
  }
  return { problem: `cell ${cell.address} holds a value of a kind Roster does not read` };
}
