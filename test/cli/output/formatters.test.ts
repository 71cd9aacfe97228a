/**
 * The formatter registry (cli/output/formats/): each format, taken from the registry, prints a
 * list, a list inside an envelope and one object as itself (test/helpers/format-readers.ts);
 * the structured ones hold the same values.
 */
import { describe, expect, it } from 'vitest';
import {
  type Column,
  type Envelope,
  FORMATS,
  type Format,
  formatterOf,
  type Shape,
} from '../../../src/cli/output/formats/index.js';
import { READERS } from '../../helpers/format-readers.js';
import { fakeIO } from '../helpers.js';

interface Row {
  id: string;
  changes: string[];
}
const rows: Row[] = [
  { id: 'a1', changes: ['x', 'y'] },
  { id: 'b2', changes: [] },
];
/** Tabular lines: one per change, or one for a row without. */
interface Line {
  row: Row;
  change?: string;
}
const columns: Column<Line>[] = [
  { header: 'id', value: (l) => l.row.id },
  { header: 'change', value: (l) => l.change },
];
const shape: Shape<Row, Line> = {
  columns,
  json: (r) => r,
  lines: (r) =>
    r.changes.length === 0 ? [{ row: r }] : r.changes.map((change) => ({ row: r, change })),
};
const envelope: Envelope = { key: 'rows', head: { ok: true, skipped: undefined } };
const trailer = { summary: { rows: 2 } };

async function list(format: Format, data: Row[], around?: Envelope) {
  const fake = fakeIO();
  const out = await formatterOf(format).begin(fake.io, shape, around);
  for (const row of data) await out.row(row);
  expect(await out.end(around ? trailer : undefined)).toBe(data.length);
  return fake.out();
}

const structured = {
  list: rows,
  envelope: { ok: true, rows, ...trailer },
  empty: { ok: true, rows: [], ...trailer },
};
const tabular = (first: unknown[]) => ({
  list: [first, ['a1', 'x'], ['a1', 'y'], ['b2', '']],
  envelope: [first, ['a1', 'x'], ['a1', 'y'], ['b2', '']],
  empty: [first],
});
const cells = (lines: string[]) =>
  lines
    .filter((l) => /^│/.test(l))
    .map((l) =>
      l
        .split('│')
        .slice(1, -1)
        .map((c) => c.trim()),
    );

/**
 * What each format holds of the list, of the list in its envelope, and of the envelope without
 * rows, read back by READERS (the table: its cells). Keyed by the registry's names, so a new
 * format cannot be left out.
 */
interface Holds {
  list: unknown;
  envelope: unknown;
  empty: unknown;
  read?: (held: unknown) => unknown;
}
const HOLDS: Record<Format, Holds> = {
  json: structured,
  yaml: structured,
  ndjson: { list: rows, envelope: [...rows, trailer], empty: [trailer] },
  csv: tabular(['id', 'change']),
  table: { ...tabular(['id', 'change']), read: (held) => cells(held as string[]) },
  ids: { list: ['a1', 'b2'], envelope: ['a1', 'b2'], empty: [] },
};

describe.each(FORMATS)('-o %s', (format) => {
  const holds = HOLDS[format];
  const read = (text: string) =>
    text === '' ? [] : (holds.read ?? ((h: unknown) => h))(READERS[format](text));

  it('a list, written row by row', async () => {
    expect(read(await list(format, rows))).toEqual(holds.list);
  });

  it('a list in an envelope, with its head and trailer', async () => {
    expect(read(await list(format, rows, envelope))).toEqual(holds.envelope);
  });

  it('an envelope without rows', async () => {
    expect(read(await list(format, [], envelope))).toEqual(holds.empty);
  });

  it('nothing is written before the first row or the end', async () => {
    const fake = fakeIO();
    await formatterOf(format).begin(fake.io, shape, envelope);
    expect(fake.out()).toBe('');
  });
});

describe('one object', () => {
  it.each(FORMATS)('-o %s: as a list of one holds it', async (format) => {
    const fake = fakeIO();
    await formatterOf(format).one(fake.io, shape, rows[0]!);
    const alone = await list(format, [rows[0]!]);
    const held = READERS[format](fake.out());
    // JSON and YAML print the object itself; the others print it as their one-row list.
    expect([held, [held]]).toContainEqual(READERS[format](alone));
  });

  it('a record on a table: a field and its value a line', async () => {
    const fake = fakeIO();
    await formatterOf('table').one(fake.io, { ...shape, record: true }, rows[0]!);
    expect(cells(READERS.table(fake.out()) as string[])).toEqual([
      ['field', 'value'],
      ['id', 'a1'],
      ['changes', '["x","y"]'],
    ]);
  });
});
