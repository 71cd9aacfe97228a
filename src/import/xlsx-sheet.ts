/**
 * A worksheet's rows, streamed from its XML (xlsx-xml.ts), with what its cells need read first:
 * the shared-strings table (capped by xlsx-guard.ts's LIMITS.sharedStrings from the directory;
 * every string in memory, as Excel's own reader keeps it) and the number format of each cell
 * style (styles.xml's numFmts and cellXfs; built-in ids as Excel numbers them). The zip's
 * directory says where each part is, so the order of the parts in the file does not matter
 * (Excel writes the shared strings after the sheets: nothing is spooled to disk).
 * A row is its number (as Excel shows it) and its cells' text (xlsx-cells.ts); a cell beyond
 * column XFD stops the read.
 */
import { cellText, isDateFormat, type RawCell, type StringTable } from './xlsx-cells.js';
import { parseEntry, parseWholeEntry } from './xlsx-xml.js';
import type { ZipEntry } from './zip-directory.js';

/** Excel's last column (XFD). */
export const MAX_COLUMNS = 16_384;

export class ColumnBoundsError extends Error {}

/** Excel's built-in number formats that a style may name by id alone (ECMA-376 §18.8.30). */
const BUILT_IN: Record<number, string> = {
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'mm-dd-yy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yy h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00 ;(#,##0.00)',
  40: '#,##0.00 ;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
};

export interface CellStyle {
  numFmt: string | undefined;
  isDate: boolean;
}

const GENERAL: CellStyle = { numFmt: undefined, isDate: false };

/** Each cell style's (cellXfs index) number format. */
export async function readStyles(
  file: string,
  entry: ZipEntry,
  signal?: AbortSignal,
): Promise<CellStyle[]> {
  const custom = new Map<number, string>();
  const styles: CellStyle[] = [];
  let inXfs = false;
  await parseWholeEntry(
    file,
    entry,
    {
      open(name, a) {
        if (name === 'numFmt' && a.numFmtId !== undefined && a.formatCode !== undefined) {
          custom.set(Number.parseInt(a.numFmtId, 10), a.formatCode);
        } else if (name === 'cellXfs') inXfs = true;
        else if (name === 'xf' && inXfs) {
          const id = Number.parseInt(a.numFmtId ?? '0', 10);
          const numFmt = id ? (custom.get(id) ?? BUILT_IN[id]) : undefined;
          styles.push(numFmt === undefined ? GENERAL : { numFmt, isDate: isDateFormat(numFmt) });
        }
      },
      close(name) {
        if (name === 'cellXfs') inXfs = false;
      },
      text() {},
    },
    signal,
  );
  return styles;
}

export interface SheetRow {
  number: number;
  /** Each cell's text by column (sparse: a missing cell is empty). */
  cells: string[];
  /** The first cell of the row that cannot be read, and why. */
  problem?: string;
}

/** `AB12` → 28; 0 when the reference has no column letters. */
function columnOf(ref: string): number {
  let col = 0;
  for (let i = 0; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c < 65 || c > 90) break;
    col = col * 26 + c - 64;
  }
  return col;
}

const letters = (col: number) => {
  let s = '';
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26))
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
};

export interface SheetContext {
  shared: StringTable;
  styles: readonly CellStyle[];
  date1904: boolean;
}

/**
 * The sheet's rows in order, as the XML gives them (rows without cells included), a batch per
 * inflated chunk: one await per chunk (a few hundred rows), not per row.
 */
export async function* sheetRows(
  file: string,
  entry: ZipEntry,
  { shared, styles, date1904 }: SheetContext,
): AsyncGenerator<SheetRow[]> {
  let ready: SheetRow[] = [];
  let row: SheetRow | undefined;
  let rowNumber = 0;
  let col = 0;
  // The open cell: its reference, type, style, value and formula.
  let inCell = false;
  let ref: string | undefined;
  let type: string | undefined;
  let style = GENERAL;
  let value: string | undefined;
  let formula = false;
  // Collecting text: 1 in <v>, 2 in an inline string's <t>; phonetic hints are not collected.
  let collect = 0;
  let inInline = false;
  let phonetic = 0;
  let buf = '';
  // One cell object, filled for each cell in turn (cellText keeps nothing of it).
  const cell: RawCell = {
    type: undefined,
    value: undefined,
    formula: false,
    numFmt: undefined,
    isDate: false,
    address: '',
  };

  const parse = parseEntry(file, entry, {
    open(name, a) {
      switch (name) {
        case 'row':
          rowNumber = a.r !== undefined ? Number.parseInt(a.r, 10) : rowNumber + 1;
          row = { number: rowNumber, cells: [] };
          col = 0;
          break;
        case 'c':
          if (!row) break;
          inCell = true;
          ref = a.r;
          col = ref !== undefined ? columnOf(ref) : col + 1;
          if (col > MAX_COLUMNS) throw new ColumnBoundsError(`column ${col} in row ${rowNumber}`);
          type = a.t;
          style = a.s !== undefined ? (styles[Number.parseInt(a.s, 10)] ?? GENERAL) : GENERAL;
          value = undefined;
          formula = false;
          break;
        case 'v':
          if (inCell) {
            collect = 1;
            buf = '';
          }
          break;
        case 'f':
          if (inCell) formula = true;
          break;
        case 'is':
          if (inCell) {
            inInline = true;
            value = '';
          }
          break;
        case 't':
          if (inInline && phonetic === 0) {
            collect = 2;
            buf = '';
          }
          break;
        case 'rPh':
          phonetic++;
          break;
      }
    },
    close(name) {
      switch (name) {
        case 'v':
          if (collect === 1) value = buf;
          collect = 0;
          break;
        case 't':
          if (collect === 2) value += buf;
          collect = 0;
          break;
        case 'is':
          inInline = false;
          break;
        case 'rPh':
          phonetic--;
          break;
        case 'c': {
          if (!inCell || !row) break;
          inCell = false;
          cell.type = type;
          cell.value = value;
          cell.formula = formula;
          cell.numFmt = style.numFmt;
          cell.isDate = style.isDate;
          cell.address = ref ?? `${letters(col)}${rowNumber}`;
          const read = cellText(cell, shared, date1904);
          if (typeof read === 'string') row.cells[col - 1] = read;
          else row.problem ??= read.problem;
          break;
        }
        case 'row':
          if (row) ready.push(row);
          row = undefined;
          break;
      }
    },
    text(t) {
      if (collect !== 0) buf += t;
    },
  });
  for await (const _ of parse) {
    if (ready.length === 0) continue;
    const batch = ready;
    ready = [];
    yield batch;
  }
}
