/**
 * A workbook cell as the text its user sees, locale aside: text as it is; a number in its
 * format's digits (`00000` keeps 00123's zeros, `0.00` two decimals, General up to Excel's 15
 * significant digits, never in scientific notation for a whole number such as a phone number);
 * a date as ISO 8601 (2024-03-01, with the time when it has one; a time of day alone as
 * 10:30:00), whether a number in a date format or an ISO date cell (t="d"); TRUE/FALSE; a
 * formula as its cached value. Decimal points are always '.', grouping is dropped: a German file's "1.234,50"
 * reads 1234.50, the same in every locale. A formula without a cached value, or an error value
 * (#N/A), is a problem of its row, not an empty cell.
 */
import { safeText } from '../contract/text-safe.js';

/** The cell's text, or why it cannot be read (the row becomes an error). */
export type CellText = string | { problem: string };

/** What of a format shows no digits: [colours, locales], "quoted text", \x escapes, _x and *x. */
const LITERALS = /\[[^\]]*]|"[^"]*"|\\.|_.|\*./g;

/** Whether a number format shows a date or time: a y, m, d, h or s outside its literals. */
export function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  return /[ymdhMsb]/.test(format.replace(LITERALS, ''));
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A date as ISO 8601: the day alone at midnight, else to the second (Excel keeps no zone). */
export function isoDate(date: Date): string {
  const t = new Date(Math.round(date.getTime() / 1000) * 1000);
  const day = `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
  if (t.getUTCHours() === 0 && t.getUTCMinutes() === 0 && t.getUTCSeconds() === 0) return day;
  return `${day}T${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
}

/** A time of day alone, to the second: what a date serial under 1 (no day) shows. */
export function timeOfDay(serial: number): string {
  const seconds = Math.min(Math.round(serial * 86_400), 86_399);
  const h = Math.floor(seconds / 3600);
  return `${pad(h)}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
}

/** An ISO 8601 date cell's value (t="d"): a day, a moment, or a time of day. */
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?Z?)?$/;
const ISO_TIME = /^(\d{2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$/;

/** A t="d" value as a date serial's text would be (isoDate, timeOfDay); undefined if not one. */
export function isoCell(value: string): string | undefined {
  const time = ISO_TIME.exec(value);
  if (time) {
    const [h, m, sec] = [Number(time[1]), Number(time[2]), Number(time[3] ?? 0)];
    return h < 24 && m < 60 && sec < 60 ? timeOfDay((h * 3600 + m * 60 + sec) / 86_400) : undefined;
  }
  const day = ISO_DAY.exec(value);
  if (!day) return undefined;
  const [y, mo, d, h, mi, sec] = day.slice(1).map((x) => Number(x ?? 0)) as number[];
  const t = Date.UTC(y!, mo! - 1, d!, h!, mi!) + Math.round(sec! * 1000);
  const date = new Date(t);
  // 2024-02-30 would roll over into March: not a date.
  if (
    date.getUTCMonth() !== mo! - 1 ||
    date.getUTCDate() !== d! ||
    h! > 23 ||
    mi! > 59 ||
    sec! >= 60
  )
    return undefined;
  return isoDate(date);
}

/** Excel's serial day number as a date (1900 system with its leap-year bug, or 1904). */
export function serialDate(serial: number, date1904: boolean): Date {
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  return new Date(epoch + Math.round(serial * 86_400_000));
}

/** A number as its format shows it (first section; literals, colours and locales stripped). */
export function numberText(value: number, format?: string): string {
  const section = (format ?? '').split(';')[0]!.replace(LITERALS, '').trim();
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
      return (
        isoCell(value.trim()) ?? {
          problem: `cell ${cell.address} holds '${safeText(value.slice(0, 40))}' as a date, which is not an ISO 8601 date (2024-03-01, 2024-03-01T10:30:00 or 10:30:00): save the file again from Excel`,
        }
      );
    case 'b':
      return Number.parseInt(value, 10) !== 0 ? 'TRUE' : 'FALSE';
    case 'e':
      if (cell.formula) return cellText({ ...cell, value: undefined }, shared, date1904);
      return { problem: `cell ${cell.address} holds the error ${value}` };
  }
  const n = Number.parseFloat(value);
  if (cell.formula && Number.isNaN(n))
    return cellText({ ...cell, value: undefined }, shared, date1904);
  if (cell.isDate) return n >= 0 && n < 1 ? timeOfDay(n) : isoDate(serialDate(n, date1904));
  return numberText(n, cell.numFmt);
}
