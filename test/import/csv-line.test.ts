/** The export's CSV records: the text csv-stringify makes with its defaults, for any cells. */
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvLine } from '../../src/import/csv-line.js';
import { EXPORT_ROW_CODEC, rowOf } from '../../src/import/export.js';

// Cells made of the characters that matter to quoting, and any others.
const cell = fc.oneof(
  fc.string({ unit: fc.constantFrom(',', ';', '\t', '"', '\n', '\r', ' ', 'a', 'ß', '1') }),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
);

describe('csvLine', () => {
  it('writes what csv-stringify writes, for each delimiter the export takes', () => {
    fc.assert(
      fc.property(
        fc.array(cell, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(',', ';', '\t'),
        (cells, delimiter) => {
          expect(`${csvLine(cells, delimiter)}\n`).toBe(stringify([cells], { delimiter }));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("the export's run-file rows", () => {
  it('come back as they went, whatever the values hold', () => {
    const text = fc.oneof(
      fc.string({ unit: fc.constantFrom(',', '1', '0', 'x') }),
      fc.string({ unit: 'binary' }),
    );
    fc.assert(
      fc.property(text, text, text, text, (externalId, email, line, extra) => {
        const row = rowOf(externalId, email, line, extra);
        expect(EXPORT_ROW_CODEC.decode(EXPORT_ROW_CODEC.encode(row))).toEqual(row);
      }),
    );
  });
});
