import { describe, expect, it } from 'vitest';
import {
  type Column,
  FORMATS,
  type Format,
  formatterOf,
  listWriter,
  renderList,
  renderRecord,
  resolveFormat,
  viewOf,
} from '../../../src/cli/output/render.js';
import { fakeIO } from '../helpers.js';

const rows = [
  { id: 'a', n: 1, tags: { x: 'y' } },
  { id: 'b,"c"', n: 2, tags: null },
];
const columns: Column<(typeof rows)[number]>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'n', value: (r) => r.n },
  { header: 'tags', value: (r) => r.tags },
];

async function render(format: Format, data = rows, tty = false) {
  const fake = fakeIO({ tty });
  await renderList(fake.io, format, data, columns);
  return fake.out();
}

describe('formats', () => {
  it('table on a TTY, json when piped, or as asked', () => {
    expect(resolveFormat(undefined, fakeIO({ tty: true }).io)).toBe('table');
    expect(resolveFormat(undefined, fakeIO().io)).toBe('json');
    expect(resolveFormat('csv', fakeIO({ tty: true }).io)).toBe('csv');
    // Every format but those for lists only (-o ids).
    const general = FORMATS.filter((f) => !formatterOf(f).idsOnly);
    for (const format of general) {
      expect(() => resolveFormat('toml', fakeIO().io)).toThrow(
        new RegExp(`one of .*\\b${format}\\b`),
      );
    }
    expect(() => resolveFormat('toml', fakeIO().io)).not.toThrow(/\bids\b/);
  });

  it('a format refused names every one that works there, wide too', () => {
    expect(() => resolveFormat('toml', fakeIO().io)).toThrow(/, table or wide, got 'toml'/);
    expect(() => resolveFormat('ids', fakeIO().io)).toThrow(/here use .*, table or wide$/);
    expect(() => resolveFormat('xlsx', fakeIO().io)).toThrow(/here use .*, table or wide$/);
  });

  it('streams JSON byte for byte like JSON.stringify of the whole array', async () => {
    expect(await render('json')).toBe(`${JSON.stringify(rows, null, 2)}\n`);
    expect(await render('json', [])).toBe('[]\n');
  });

  it('ndjson: one object a line', async () => {
    expect((await render('ndjson')).split('\n')).toEqual([
      JSON.stringify(rows[0]),
      JSON.stringify(rows[1]),
      '',
    ]);
    expect(await render('ndjson', [])).toBe('');
  });

  it('csv: header row + rows, quoted, objects as JSON', async () => {
    expect(await render('csv')).toBe('id,n,tags\na,1,"{""x"":""y""}"\n"b,""c""",2,\n');
    expect(await render('csv', [])).toBe('id,n,tags\n');
  });

  it('table: headers and cells, no colour codes when colour is off', async () => {
    const out = await render('table');
    expect(out).toMatch(/│ id\s+│ n\s+│ tags\s+│/);
    expect(out).toContain('{"x":"y"}');
    expect(out).not.toContain('\u001b[');
  });
});

describe('views and records', () => {
  const user = { id: 'u1', email: { value: 'a@x' }, profile: { firstName: 'A', lastName: 'B' } };

  it('--fields gives path columns and nested JSON', async () => {
    const fields = [
      { name: 'id', path: 'id' },
      { name: 'lastName', path: 'profile.lastName' },
    ];
    const view = viewOf('csv', [], fields);
    const fake = fakeIO();
    const out = await listWriter(fake.io, view);
    await out.write(user);
    expect(await out.end()).toBe(1);
    expect(fake.out()).toBe('id,lastName\nu1,B\n');
    expect(viewOf('json', [], fields.slice(1)).json(user)).toEqual({
      profile: { lastName: 'B' },
    });
  });

  it('one record: JSON object, or a field/value table', async () => {
    const json = fakeIO();
    await renderRecord(json.io, viewOf('json', []), user);
    expect(JSON.parse(json.out())).toEqual(user);
    const table = fakeIO({ tty: true });
    await renderRecord(table.io, viewOf('table', []), user);
    expect(table.out()).toMatch(/│ field\s+│ value\s+│/);
    expect(table.out()).toMatch(/│ profile\.lastName\s+│ B\s+│/);
  });
});

it('-o csv quotes formula-like cells as export does (CSV injection)', async () => {
  const fake = fakeIO();
  await renderList(
    fake.io,
    'csv',
    [{ a: '=1+2' }, { a: '+49 89 1234-0' }],
    [{ header: 'a', value: (r: { a: string }) => r.a }],
  );
  expect(fake.out()).toBe("a\n'=1+2\n+49 89 1234-0\n");
});
