/**
 * An .xlsx sheet as the import's row source: the same CsvFile a CSV gives (read.ts), so the
 * mapping, plan, resume and report do not know which it was. The workbook passes xlsx-guard.ts
 * first; then its shared strings and styles are read and the sheet's rows streamed from its XML
 * (xlsx-sheet.ts, our own reader: exceljs only writes). `line` is the sheet's row number, as
 * Excel shows it. Empty rows are skipped, trailing empty columns ignored.
 */
import { toCsvCell } from '../contract/csv-cell.js';
import { ImportError, importUsageError } from './errors.js';
import type { CsvFile, CsvRecord } from './read.js';
import { checkWorkbook, type SheetInfo, sheetMerges, type WorkbookInfo } from './xlsx-guard.js';
import {
  ColumnBoundsError,
  MAX_COLUMNS,
  readStyles,
  type SheetRow,
  sheetRows,
} from './xlsx-sheet.js';
import { readSharedStrings, SharedStrings } from './xlsx-strings.js';

export { MAX_COLUMNS };

export interface SheetOptions {
  /** A sheet's name, or its position (1 = the first tab); default: the first visible one. */
  sheet?: string;
  /** The header's row number (a report's title block above it); default: the first non-empty. */
  headerRow?: number;
}

const quoted = (s: string) => `'${s}'`;

function pickSheet(file: string, info: WorkbookInfo, wanted: string | undefined): SheetInfo {
  const names = info.sheets.map((s) => quoted(s.name) + (s.state === 'visible' ? '' : ' (hidden)'));
  let sheet: SheetInfo | undefined;
  if (wanted === undefined) {
    sheet = info.sheets.find((s) => s.state === 'visible');
    if (!sheet)
      throw importUsageError(
        `${file}: every sheet is hidden; choose one with --sheet NAME (its sheets: ${names.join(', ')})`,
      );
  } else {
    sheet =
      info.sheets.find((s) => s.name === wanted) ??
      info.sheets.find((s) => s.name.toLowerCase() === wanted.trim().toLowerCase()) ??
      (/^\d+$/.test(wanted) ? info.sheets[Number(wanted) - 1] : undefined);
    if (!sheet) {
      throw importUsageError(
        `--sheet ${wanted}: ${file} has no such sheet; its sheets: ${names.join(', ')} (a name, or a number from 1 to ${info.sheets.length})`,
      );
    }
  }
  if (sheet.partNo === undefined) {
    throw importUsageError(
      `${file}: sheet '${sheet.name}' is not a worksheet Roster can read (a chart sheet, or stored under another name): save the workbook again from Excel`,
    );
  }
  return sheet;
}

/** `C1:D1` → its first and last row and column numbers. */
function rangeOf(ref: string) {
  const cell = (a: string) => {
    const m = /^([A-Z]+)(\d+)$/.exec(a)!;
    const col = [...m[1]!].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
    return { col, row: Number(m[2]) };
  };
  const [from, to = from] = ref.split(':') as [string, string?];
  return { from: cell(from), to: cell(to) };
}

/** How many of a row's cells count: trailing empty ones do not. */
function widthOf(cells: readonly (string | undefined)[]) {
  let width = cells.length;
  while (width > 0 && (cells[width - 1] ?? '').trim() === '') width--;
  return width;
}

/** A row's first `width` cells (holes as ''), each through `as`, in the row's own array. */
function cellsOf(cells: (string | undefined)[], width: number, as = (c: string) => c) {
  for (let i = 0; i < width; i++) cells[i] = as(cells[i] ?? '');
  cells.length = width;
  return cells as string[];
}

/** Opens a workbook's sheet for streaming: reads up to the header, then yields data rows. */
export async function openXlsx(file: string, bytes: number, opts: SheetOptions): Promise<CsvFile> {
  const info = await checkWorkbook(file);
  const sheet = pickSheet(file, info, opts.sheet);
  const where = `${file}, sheet '${sheet.name}'`;
  const entry = (name: string) => info.entries.find((e) => e.name === name);
  const unreadable = (err: unknown) => {
    if (err instanceof ImportError) return err;
    if (err instanceof ColumnBoundsError) {
      return importUsageError(
        `${where}: a row has cells beyond column XFD (${MAX_COLUMNS.toLocaleString('en')}, Excel's last); the file was not written by Excel: save it again from Excel, or export it as CSV`,
      );
    }
    return importUsageError(
      `${where}: not a readable workbook (${(err as Error).message}): save it again from Excel, or export it as CSV`,
    );
  };
  const part = entry(`xl/worksheets/sheet${sheet.partNo}.xml`);
  if (!part) throw unreadable(new Error(`its sheet's part is missing`));
  let rows: AsyncGenerator<SheetRow[]>;
  let merges: string[];
  try {
    const strings = entry('xl/sharedStrings.xml');
    const styles = entry('xl/styles.xml');
    // The sheet's scan for merged cells inflates in zlib's threads while saxes reads the
    // shared strings here; the first of them to fail stops the others.
    const stop = new AbortController();
    const [shared, cellStyles, merged] = await Promise.all([
      strings ? readSharedStrings(file, strings, stop.signal) : new SharedStrings(),
      styles ? readStyles(file, styles, stop.signal) : [],
      sheetMerges(file, part, stop.signal),
    ]).catch((err: unknown) => {
      stop.abort();
      throw err;
    });
    merges = merged;
    rows = guarded(sheetRows(file, part, { shared, styles: cellStyles, date1904: info.date1904 }));
  } catch (err) {
    throw unreadable(err);
  }

  async function* guarded(source: AsyncGenerator<SheetRow[]>): AsyncGenerator<SheetRow[]> {
    try {
      yield* source;
    } catch (err) {
      throw unreadable(err);
    }
  }

  // The batch being read and the next row in it, shared by the header's search and records().
  let batch: SheetRow[] = [];
  let at = 0;
  const more = async () => {
    for (let next = await rows.next(); !next.done; next = await rows.next()) {
      if (next.value.length === 0) continue;
      batch = next.value;
      at = 0;
      return true;
    }
    return false;
  };

  let header: string[] | undefined;
  let headerAt = 0;
  search: while (at < batch.length || (await more())) {
    for (; at < batch.length; at++) {
      const row = batch[at]!;
      if (opts.headerRow !== undefined && row.number < opts.headerRow) continue;
      const width = widthOf(row.cells);
      if (opts.headerRow !== undefined && (row.number > opts.headerRow || width === 0)) {
        throw importUsageError(
          `--header-row ${opts.headerRow}: row ${opts.headerRow} of ${where} is empty; give the row number Excel shows beside the column names`,
        );
      }
      if (width === 0) continue;
      header = cellsOf(row.cells, width, (c) => c.trim());
      headerAt = row.number;
      at++;
      break search;
    }
  }
  if (!header) {
    throw importUsageError(
      opts.headerRow !== undefined
        ? `--header-row ${opts.headerRow}: ${where} has ${opts.headerRow > 1 ? 'no row that far down' : 'no rows'}`
        : `${where} is empty: expected a header row such as 'externalId,email,firstName,lastName' (see \`roster users import --template\`)`,
    );
  }
  const merged = merges.find((ref) => {
    const r = rangeOf(ref);
    return (
      r.from.row <= headerAt &&
      headerAt <= r.to.row &&
      (r.from.col !== r.to.col || r.from.row !== r.to.row)
    );
  });
  if (merged) {
    throw importUsageError(
      `${where}: the header row (row ${headerAt}) has merged cells (${merged}): unmerge them in Excel and give each column its own name in one row${headerAt > 1 || merged.includes(':') ? ' (then point --header-row at that row)' : ''}`,
    );
  }
  const width = header.length;

  async function* records(): AsyncGenerator<CsvRecord> {
    let n = 0;
    while (at < batch.length || (await more())) {
      for (; at < batch.length; ) {
        const row = batch[at++]!;
        const cells = widthOf(row.cells);
        const problem = row.problem;
        if (cells === 0 && !problem) continue;
        // Escaped as a CSV cell would be: the engine reads every cell back with fromCsvCell.
        const record: CsvRecord = {
          row: ++n,
          line: row.number,
          fields: cellsOf(row.cells, Math.max(width, cells), toCsvCell),
        };
        if (problem) record.problem = problem;
        yield record;
      }
    }
  }
  return { file, header, delimiter: '', bytes, records: records() };
}
