/**
 * `-o table` (the default on a terminal): for people. A list is buffered, since a table sizes
 * its columns from every row (output/table.ts); one object is a one-row table, or `field value`
 * lines for a record. An envelope's head and trailer are the command's to show (a plan's
 * summary): the table holds the rows.
 */
import type { IO } from '../../context.js';
import { leaves } from '../fields.js';
import { cell, type Formatter, linesOf, type Shape } from './formatter.js';

async function open<T, L>(io: IO, shape: Shape<T, L>) {
  const lines: L[] = [];
  let count = 0;
  return {
    async row(row: T) {
      count++;
      lines.push(...linesOf(shape, row));
    },
    async end() {
      const { renderTable } = await import('../table.js');
      const { columns } = shape;
      await renderTable(
        io,
        columns,
        lines.map((l) => columns.map((c) => cell(c.value(l)))),
      );
      return count;
    },
  };
}

export const table: Formatter = {
  forPeople: true,
  idsOnly: false,
  begin: (io, shape) => open(io, shape),
  async one(io, shape, row) {
    if (shape.record) {
      const { renderFields } = await import('../table.js');
      await renderFields(
        io,
        leaves(shape.json(row)).map(([path, value]) => [path, cell(value)]),
      );
      return;
    }
    const rows = await open(io, shape);
    await rows.row(row);
    await rows.end();
  },
};
