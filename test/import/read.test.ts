import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectDelimiter, openCsv } from '../../src/import/read.js';
import { fixture, readAll, tempCsv } from './helpers.js';

describe('reading each dialect', () => {
  it('comma, LF', async () => {
    const { delimiter, header, rows } = await readAll(fixture('comma.csv'));
    expect(delimiter).toBe(',');
    expect(header[0]).toBe('externalId');
    expect(rows.map((r) => [r.row, r.line, r.fields[0]])).toEqual([
      [1, 2, 'E-001'],
      [2, 3, 'E-002'],
      [3, 4, 'E-003'],
    ]);
  });

  it('Excel UTF-8 in a German locale: BOM, semicolons, CRLF, a quoted semicolon', async () => {
    const { delimiter, header, rows } = await readAll(fixture('semicolon-bom-crlf.csv'));
    expect(delimiter).toBe(';');
    expect(header[0]).toBe('Personalnummer'); // no BOM left on the first name
    expect(rows[1]!.fields).toEqual([
      'P-002',
      'joerg.weiss@example.com',
      'Jörg',
      'Weiß',
      'Forschung; Entwicklung',
    ]);
  });

  it('tab-separated, with a comma and a quoted tab inside values', async () => {
    const { delimiter, rows } = await readAll(fixture('tab.tsv'));
    expect(delimiter).toBe('\t');
    expect(rows[0]!.fields[4]).toBe('Sales, EMEA');
    expect(rows[1]!.fields[3]).toBe('Quoted\tTab');
  });

  it('windows-1252 with --encoding', async () => {
    const { rows } = await readAll(fixture('windows-1252.csv'), { encoding: 'windows-1252' });
    expect(rows.map((r) => r.fields[2])).toEqual(['François', 'Zoë']);
  });

  it('UTF-16LE with a BOM (Excel "Unicode text")', async () => {
    const { delimiter, rows } = await readAll(fixture('utf16le-tab.txt'));
    expect(delimiter).toBe('\t');
    expect(rows.map((r) => r.fields[2])).toEqual(['Łukasz', '李']);
  });

  it('quoted newlines and blank lines keep line numbers right', async () => {
    const { rows } = await readAll(fixture('quoted-newlines.csv'));
    expect(rows.map((r) => [r.row, r.line])).toEqual([
      [1, 2],
      [2, 4],
      [3, 6],
      [4, 9],
    ]);
    expect(rows[1]!.fields[2]).toBe('Ada "The Countess"');
  });

  it('CRLF inside quoted fields, mixed line ends, no final newline, delimiter-only lines', async () => {
    const path = tempCsv('a,b\r\n1,"x\r\ny"\r\n\r\n2,3\n,\n3,"4\r\n\r\n5"\r\n6,7');
    const { rows } = await readAll(path);
    expect(rows.map((r) => [r.line, ...r.fields])).toEqual([
      [2, '1', 'x\r\ny'],
      [5, '2', '3'],
      [7, '3', '4\r\n\r\n5'],
      [10, '6', '7'],
    ]);
  });

  it('an explicit delimiter wins over detection', async () => {
    const { rows } = await readAll(tempCsv('a;b,c\n1;2,3\n'), { delimiter: ',' });
    expect(rows[0]!.fields).toEqual(['1;2', '3']);
  });
});

describe('detectDelimiter', () => {
  it('picks the most frequent of , ; tab outside quotes, else ,', () => {
    expect(detectDelimiter('a;b;c')).toBe(';');
    expect(detectDelimiter('a\tb\tc,d')).toBe('\t');
    expect(detectDelimiter('"a;b;c",d')).toBe(',');
    expect(detectDelimiter('single')).toBe(',');
  });
});

describe('files that cannot be read', () => {
  it('missing file, directory, empty file', async () => {
    await expect(openCsv(fixture('bad/missing.csv'))).rejects.toThrow(/missing\.csv: no such file/);
    await expect(openCsv(mkdtempSync(join(tmpdir(), 'dir-')))).rejects.toThrow(
      /is a directory, not a CSV file/,
    );
    await expect(openCsv(fixture('bad/empty.csv'))).rejects.toThrow(
      /empty\.csv is empty: expected a header row/,
    );
    await expect(openCsv(tempCsv('\n\r\n\n'))).rejects.toThrow(/is empty/);
  });

  it('header only: no rows', async () => {
    expect((await readAll(fixture('bad/header-only.csv'))).rows).toEqual([]);
  });

  it('unterminated quote: the line where the record starts, and the column', async () => {
    await expect(readAll(fixture('bad/unterminated-quote.csv'))).rejects.toThrow(
      /unterminated-quote\.csv line 3, column 3 \(firstName\): a quoted field is never closed/,
    );
  });

  it('a stray quote inside a field', async () => {
    await expect(readAll(fixture('bad/stray-quote.csv'))).rejects.toThrow(
      /stray-quote\.csv line 3, column 3 \(firstName\): a quote \("\) inside a field/,
    );
  });

  it('wrong encoding: line, column and a suggestion', async () => {
    await expect(readAll(fixture('bad/windows-1252-as-utf8.csv'))).rejects.toThrow(
      /windows-1252-as-utf8\.csv line 3, column 23: byte 0xE7 is not valid UTF-8.*--encoding windows-1252/,
    );
    await expect(readAll(fixture('bad/utf16-no-bom.csv'))).rejects.toThrow(/--encoding utf-16le/);
  });
});

describe('preambles', () => {
  it("Excel's sep= first line sets the delimiter and is not the header; lines keep their numbers", async () => {
    const { delimiter, header, rows } = await readAll(
      tempCsv('sep=|\r\nexternalId|email;name\r\nP-1|p@example.com;x\r\n'),
    );
    expect(delimiter).toBe('|');
    expect(header).toEqual(['externalId', 'email;name']);
    expect(rows.map((r) => [r.line, r.fields[0]])).toEqual([[3, 'P-1']]);
    // An explicit --delimiter still wins; the sep= line is still skipped.
    const other = await readAll(tempCsv('sep=;\na,b\n1,2\n'), { delimiter: ',' });
    expect(other.header).toEqual(['a', 'b']);
  });

  it('--skip-lines N, then a preset preamble only when present; errors name the real line', async () => {
    const text = 'Report of 2026-11-23\nExported by HR\nid,email\nA,"a@example.com\n';
    await expect(readAll(tempCsv(text), { skipLines: 2 })).rejects.toThrow(
      /line 4, column 2 \(email\): a quoted field is never closed/,
    );
    const preamble = /^version:v\d+(?:\.\d+)*[,;\t]*$/i;
    const withIt = await readAll(tempCsv('version:v1.0,,\nname,upn\nA,a@x\n'), { preamble });
    expect([withIt.header, withIt.rows[0]!.line]).toEqual([['name', 'upn'], 3]);
    const without = await readAll(tempCsv('name,upn\nA,a@x\n'), { preamble });
    expect([without.header, without.rows[0]!.line]).toEqual([['name', 'upn'], 2]);
    await expect(readAll(tempCsv('a\nb\n'), { skipLines: 5 })).rejects.toThrow(
      /--skip-lines 5 skips the whole file/,
    );
  });

  it('Mac Excel "CSV (Macintosh)": Mac Roman, CR line ends, sep=', async () => {
    await expect(readAll(fixture('mac-roman.csv'))).rejects.toThrow(
      /mac-roman\.csv line 3, column 26: byte 0x9F is not valid UTF-8; the file is probably Mac Roman.*reads 'J(ü)rgen' where windows-1252 would read 'JŸrgen': try --encoding macintosh/,
    );
    const { delimiter, header, rows } = await readAll(fixture('mac-roman.csv'), {
      encoding: 'macintosh',
    });
    expect([delimiter, header[4]]).toEqual([';', 'Abteilung']);
    expect(rows.map((r) => [r.line, r.fields[2], r.fields[3]])).toEqual([
      [3, 'Jürgen', 'Müller'],
      [4, 'Zoë', 'Straße'],
      [5, 'François', 'Ærø'],
    ]);
  });
});
