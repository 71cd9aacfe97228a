/**
 * The reader's cell rules (src/import/xlsx-cells.ts, xlsx-sheet.ts, xlsx-strings.ts), through the
 * import's row source: workbooks written by openpyxl and edited where it writes no such cell
 * (fixtures/xlsx/make-cells.py). Column A names the rule, column B is the cell under test.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromCsvCell } from '../../src/contract/csv-cell.js';
import { openCsv } from '../../src/import/read.js';

const at = (name: string) => join(import.meta.dirname, '..', '..', 'fixtures', 'xlsx', name);

/** Each case's value as the import reads it, or its row's problem. */
async function cases(name: string) {
  const f = await openCsv(at(name));
  expect(f.header).toEqual(['case', 'value']);
  const read = new Map<string, string>();
  const problems = new Map<string, string>();
  for await (const r of f.records) {
    const [key = '', value = ''] = r.fields.map(fromCsvCell);
    if (r.problem) problems.set(key, r.problem);
    else read.set(key, value);
  }
  return { read, problems };
}

describe('cells.xlsx', () => {
  it('a formula with a boolean cached value (t="b" with an <f>) reads TRUE or FALSE', async () => {
    const { read } = await cases('cells.xlsx');
    expect(read.get('formula-true')).toBe('TRUE');
    expect(read.get('formula-false')).toBe('FALSE');
  });

  it("an inline string's rich-text runs are joined; its phonetic run is not text", async () => {
    const { read } = await cases('cells.xlsx');
    expect(read.get('inline-rich')).toBe('Ann Lee');
    expect(read.get('inline-phonetic')).toBe('東京');
  });

  it("a shared string's phonetic runs (<rPh>) are not part of its text; runs and entities are", async () => {
    const { read } = await cases('cells.xlsx');
    expect(read.get('shared-phonetic')).toBe('山田');
    expect(read.get('shared-rich-phonetic')).toBe('Résumé');
    expect(read.get('shared-entities')).toBe('Lee & Co <HR>');
  });

  it('the built-in date and time formats (ids 14–22) give ISO 8601', async () => {
    const { read } = await cases('cells.xlsx');
    for (const id of [14, 15, 16, 17]) expect(read.get(`builtin-${id}`)).toBe('2024-03-01');
    // A time of day alone (a serial under 1) is the time, not a day of 1899.
    for (const id of [18, 19, 20, 21]) expect(read.get(`builtin-${id}`)).toBe('10:30:00');
    expect(read.get('builtin-22')).toBe('2024-03-01T10:30:00');
  });

  it('custom date formats give ISO 8601', async () => {
    const { read } = await cases('cells.xlsx');
    expect(read.get('custom-day')).toBe('2024-03-01');
    expect(read.get('custom-moment')).toBe('2024-03-01T10:30:00');
  });

  it('a number format with literal text, an escaped letter or a colour is a number, not a date', async () => {
    const { read } = await cases('cells.xlsx');
    expect(read.get('quoted-h')).toBe('5');
    expect(read.get('escaped-h')).toBe('5');
    expect(read.get('escaped-d')).toBe('12');
    expect(read.get('red')).toBe('5.00');
    expect(read.get('quoted-words')).toBe('1234.50');
  });
});

describe('iso-dates.xlsx: ISO 8601 date cells (t="d")', () => {
  it('read as ISO 8601 the way a date number is: the day alone at midnight, else to the second', async () => {
    const { read } = await cases('iso-dates.xlsx');
    expect(read.get('day')).toBe('2024-03-01');
    expect(read.get('moment')).toBe('2024-03-01T10:30:00');
    expect(read.get('midnight')).toBe('2024-03-01');
    expect(read.get('time')).toBe('10:30:00');
    expect(read.get('zulu')).toBe('2024-03-01T10:30:00');
    expect(read.get('fraction')).toBe('2024-03-01T10:30:00');
  });

  it('one that is not a date is an error on its row, naming the cell', async () => {
    const { problems } = await cases('iso-dates.xlsx');
    expect(problems.get('not-a-date')).toMatch(/cell B8 .*'yesterday'.* not an ISO 8601 date/);
  });
});
