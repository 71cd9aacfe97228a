/**
 * .xlsx workbooks as the import's row source (src/import/xlsx-read.ts, sniff.ts, xlsx-guard.ts):
 * fixtures written by openpyxl (fixtures/xlsx/make.py), each good one beside the CSV of the same
 * data; the hostile ones refused as usage errors (exit 2) naming the file and what to do.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/errors.js';
import { openCsv, type ReadOptions } from '../../src/import/read.js';
import { numberText } from '../../src/import/xlsx-cells.js';
import { LIMITS } from '../../src/import/xlsx-guard.js';
import { scratch } from '../helpers/scratch.js';

const XLSX = join(import.meta.dirname, '..', '..', 'fixtures', 'xlsx');
const at = (name: string) => join(XLSX, name);
const files = scratch();
afterAll(() => files.cleanup());

async function readAll(file: string, opts: ReadOptions = {}) {
  const f = await openCsv(file, opts);
  const rows = [];
  for await (const r of f.records) rows.push(r);
  return { header: f.header, rows };
}

async function refusal(file: string, opts: ReadOptions = {}): Promise<ImportError> {
  const err = await readAll(file, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImportError);
  expect((err as ImportError).kind).toBe('usage'); // exit 2
  return err as ImportError;
}

describe('a workbook reads as the same data as its CSV', () => {
  for (const [name, opts] of [
    ['german', {}],
    ['workday-report', { headerRow: 4 }],
    ['leading-zeros', {}],
  ] as const) {
    it(`${name}.xlsx`, async () => {
      const book = await readAll(at(`${name}.xlsx`), opts);
      const csv = await readAll(at(`${name}.csv`));
      expect(book.header).toEqual(csv.header);
      expect(book.rows.map((r) => r.fields)).toEqual(csv.rows.map((r) => r.fields));
    });
  }

  it("a row's line is the sheet's row number; the rows below the title block and the empty rows are skipped", async () => {
    const { rows } = await readAll(at('workday-report.xlsx'), { headerRow: 4 });
    expect(rows.map((r) => [r.row, r.line])).toEqual([
      [1, 5],
      [2, 6],
      [3, 7],
    ]);
  });

  it('the content decides, not the name: a workbook named .csv, a CSV named .xlsx', async () => {
    const book = await readAll(at('workbook-named.csv'));
    expect(book.rows[0]!.fields[0]).toBe('00123');
    const csv = await readAll(at('csv-named.xlsx'));
    expect(csv.rows[0]!.fields.slice(0, 2)).toEqual(['N-1', 'named@example.com']);
  });
});

describe('--sheet', () => {
  it('defaults to the first visible sheet', async () => {
    const { rows } = await readAll(at('sheets.xlsx'));
    expect(rows[0]!.fields[0]).toBe('S-1');
  });

  it('by name or position', async () => {
    expect((await readAll(at('sheets.xlsx'), { sheet: 'Contractors' })).rows[0]!.fields[0]).toBe(
      'C-1',
    );
    expect((await readAll(at('sheets.xlsx'), { sheet: '3' })).rows[0]!.fields[0]).toBe('C-1');
  });

  it('a sheet that does not exist: the error lists the sheets', async () => {
    const err = await refusal(at('sheets.xlsx'), { sheet: 'Payroll' });
    expect(err.message).toContain('sheets.xlsx has no such sheet');
    expect(err.message).toContain("'Lookup' (hidden), 'Staff', 'Contractors'");
  });

  it('is refused for a CSV file, as --encoding is for a workbook', async () => {
    expect((await refusal(at('german.csv'), { sheet: 'x' })).message).toContain(
      '--sheet is for .xlsx workbooks',
    );
    expect((await refusal(at('german.xlsx'), { encoding: 'latin1' })).message).toContain(
      '--encoding is for CSV files',
    );
  });
});

describe('cells as the user sees them', () => {
  it('a formula without a saved value is an error on its row, not an empty cell', async () => {
    const { rows } = await readAll(at('formula-no-value.xlsx'));
    expect(rows[0]!.problem).toBeUndefined();
    expect(rows[1]!.problem).toMatch(/cell C3 is a formula without a saved value/);
  });

  it('numbers in their format, never in scientific notation', () => {
    expect(numberText(123, '00000')).toBe('00123');
    expect(numberText(4915112345678)).toBe('4915112345678');
    expect(numberText(1234.5, '#,##0.00')).toBe('1234.50');
    expect(numberText(0.1 + 0.2)).toBe('0.3');
    expect(numberText(7, '[$-407]0')).toBe('7');
  });
});

describe('bad workbooks: refused, naming the file and what to do', () => {
  it.each([
    [
      'encrypted.xlsx',
      /password-protected \(encrypted\) workbook: open it in Excel, remove the password/,
    ],
    ['legacy.xlsx', /legacy Excel 97-2003 workbook \(\.xls, BIFF\).*save it as \.xlsx or CSV/],
    ['html-named.xlsx', /is an HTML page .*save it as \.xlsx or CSV/],
    [
      'zip-bomb.xlsx',
      /xl\/worksheets\/sheet1\.xml inflates \d+ times .* a zip bomb's ratio; refused before reading it/,
    ],
    ['xxe.xlsx', /xl\/worksheets\/sheet1\.xml has a DOCTYPE .*nothing read from it or fetched/],
    ['wide.xlsx', /a row has cells beyond column XFD \(16,384/],
    ['merged-headers.xlsx', /the header row \(row 1\) has merged cells \(C1:D1\): unmerge them/],
  ])('%s', async (name, message) => {
    const err = await refusal(at(name));
    expect(err.message).toContain(at(name));
    expect(err.message).toMatch(message);
  });

  it('a sheet inflating beyond what its zip directory declares is stopped there (a lying zip bomb)', async () => {
    // The bomb's directory, edited to declare 1 MiB - 1 byte (under the ratio check's threshold).
    const bytes = readFileSync(at('zip-bomb.xlsx'));
    const name = Buffer.from('xl/worksheets/sheet1.xml');
    let central = bytes.indexOf(Buffer.concat([Buffer.from([0x50, 0x4b, 0x01, 0x02])]));
    while (!bytes.subarray(central + 46, central + 46 + name.length).equals(name)) {
      central = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), central + 4);
    }
    bytes.writeUInt32LE(LIMITS.ratioFrom - 1, central + 24);
    // Its zip64 extra field, when it has one, holds the size instead.
    const extra = central + 46 + name.length;
    if (bytes.readUInt32LE(central + 24) === 0xffffffff || bytes.readUInt16LE(extra) === 1) {
      bytes.writeUInt32LE(LIMITS.ratioFrom - 1, central + 24);
    }
    const file = join(files.temp('roster-xlsx-'), 'liar.xlsx');
    writeFileSync(file, bytes);
    const err = await refusal(file);
    expect(err.message).toMatch(/inflates to more than the 1048575 bytes its directory declares/);
  });

  it('duplicate header names', async () => {
    // Two columns of one field: the same refusal as a CSV's (exit 2).
    const { header } = await readAll(at('duplicate-headers.xlsx'));
    expect(header).toEqual(['externalId', 'email', 'Email', 'firstName']);
  });

  it('Excel 2003 XML (SpreadsheetML) named .xls', async () => {
    const file = join(files.temp('roster-xlsx-'), 'report.xls');
    writeFileSync(
      file,
      '<?xml version="1.0"?>\n<?mso-application progid="Excel.Sheet"?>\n<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"></Workbook>\n',
    );
    expect((await refusal(file)).message).toContain('save it as .xlsx or CSV');
  });

  it('a file whose name says nothing is still judged by its content', async () => {
    const file = join(files.temp('roster-xlsx-'), 'people');
    copyFileSync(at('legacy.xlsx'), file);
    expect((await refusal(file)).message).toMatch(/legacy Excel 97-2003/);
  });
});

describe('a shared-strings table beyond its cap', () => {
  it('is refused from the size its zip directory declares, before any string is read', async () => {
    const { default: ExcelJS } = await import('exceljs');
    const file = join(files.temp('roster-xlsx-'), 'strings.xlsx');
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true });
    const sheet = book.addWorksheet('People');
    sheet.addRow(['externalId', 'email']).commit();
    for (let i = 0; i < 2000; i++) sheet.addRow([`S-${i}`, `s${i}@example.com`]).commit();
    sheet.commit();
    await book.commit();
    // The cap made small for the test (64 MiB in use): the rule, not the size, is tested.
    const cap = LIMITS.sharedStrings;
    LIMITS.sharedStrings = 16 * 1024;
    try {
      const err = await refusal(file);
      expect(err.message).toMatch(
        /xl\/sharedStrings\.xml inflates to \d+ bytes \(at most 16384 bytes\)/,
      );
    } finally {
      LIMITS.sharedStrings = cap;
    }
  });
});
