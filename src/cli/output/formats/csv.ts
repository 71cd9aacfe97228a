/**
 * `-o csv`: a header row (unless `--no-headers`), then one line per row (or per line a row
 * splits into), cells neutralised for spreadsheets (contract/csv-cell.ts). An envelope's head
 * and trailer are left out: CSV holds rows.
 */
import { toCsvCell } from '../../../contract/csv-cell.js';
import type { IO } from '../../context.js';
import { cell, type Formatter, linesOf, type Shape, write } from './formatter.js';

async function open<T, L>(io: IO, shape: Shape<T, L>) {
  const { stringify } = await import('csv-stringify/sync');
  const line = (values: unknown[]) => stringify([values.map(cell)]);
  const header = io.headers !== false ? line(shape.columns.map((c) => c.header)) : '';
  let count = 0;
  let headed = false;
  const head = async () => {
    if (!headed && header) await write(io, header);
    headed = true;
  };
  return {
    async row(row: T) {
      count++;
      for (const l of linesOf(shape, row)) {
        await head();
        await write(io, line(shape.columns.map((c) => toCsvCell(cell(c.value(l))))));
      }
    },
    async end() {
      await head();
      return count;
    },
  };
}

export const csv: Formatter = {
  forPeople: false,
  idsOnly: false,
  begin: (io, shape) => open(io, shape),
  async one(io, shape, row) {
    const rows = await open(io, shape);
    await rows.row(row);
    await rows.end();
  },
};
