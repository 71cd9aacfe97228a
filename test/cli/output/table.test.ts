import { expect, test } from 'vitest';
import { resolveFormat } from '../../../src/cli/output/render.js';
import { displayWidth, renderTable } from '../../../src/cli/output/table.js';
import { safeJson, safeText } from '../../../src/cli/output/text-safe.js';
import { fakeIO } from '../helpers.js';

const head = [{ header: 'id' }, { header: 'email' }, { header: 'name' }];
const rows = [
  ['65f000000000000000000001', 'ann.archer@a-very-long-domain.example.com', 'Ann Archer'],
  ['65f000000000000000000002', 'bob@example.com', 'Bob 李小龍'],
];

test('a header, a rule under it, and no rule between rows', async () => {
  const fake = fakeIO({ tty: true });
  await renderTable(fake.io, head, rows);
  const lines = fake.out().trimEnd().split('\n');
  expect(lines).toHaveLength(6);
  expect(lines[1]).toMatch(/^│ id\s+│ email\s+│ name\s+│$/);
  expect(lines[2]).toMatch(/^├─+┼─+┼─+┤$/);
  expect(lines[3]).toContain('ann.archer@a-very-long-domain.example.com');
  expect(new Set(lines.map(displayWidth)).size).toBe(1);
});

test('fits the terminal: the widest column is cut with an ellipsis', async () => {
  const fake = fakeIO({ tty: true });
  fake.io.columns = 60;
  await renderTable(fake.io, head, rows);
  const lines = fake.out().trimEnd().split('\n');
  for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
  expect(lines[3]).toContain('…');
  expect(lines[3]).toMatch(/│ 65f0+/);
});

test('-o wide is a table that is not cut', async () => {
  const fake = fakeIO({ tty: true });
  fake.io.columns = 60;
  expect(resolveFormat('wide', fake.io)).toBe('table');
  await renderTable(fake.io, head, rows);
  expect(fake.out()).toContain('ann.archer@a-very-long-domain.example.com');
});

test('control characters, DEL and bidi overrides from the service are shown, not obeyed', async () => {
  const hostile = '\u001b]0;pwned\u0007\u001b[2JEve\u202eevil\u009b31m\u007f';
  const fake = fakeIO({ tty: true });
  await renderTable(fake.io, [{ header: 'name' }], [[hostile]]);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence.
  expect(fake.out()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  expect(fake.out()).toContain('\\x1b]0;pwned\\x07\\x1b[2JEve\\u202eevil\\x9b31m\\x7f');
  expect(safeText('plain Zoë')).toBe('plain Zoë');
});

test('JSON output escapes C1 controls and DEL, which JSON.stringify leaves raw', () => {
  const json = safeJson(JSON.stringify({ name: 'a\u009bb\u007fc\u001bd' }));
  expect(json).toBe('{"name":"a\\u009bb\\u007fc\\u001bd"}');
  expect(JSON.parse(json).name).toBe('a\u009bb\u007fc\u001bd');
});

test("a wrapping column goes on over more lines instead of being cut (a plan's changes)", async () => {
  const fake = fakeIO({ tty: true });
  fake.io.columns = 50;
  const changes = 'firstName: Robert → Bob, department: Sales and Marketing → Research';
  await renderTable(
    fake.io,
    [{ header: 'line' }, { header: 'changes', wrap: true }],
    [
      ['3', changes],
      ['4', 'short'],
    ],
  );
  const lines = fake.out().trimEnd().split('\n');
  for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(50);
  const body = lines.slice(3, -1).map((l) => l.split('│').map((c) => c.trim()));
  expect(body.length).toBeGreaterThan(2); // row 3 took more than one line
  expect(body.map((c) => c[1])).toEqual(['3', ...Array(body.length - 2).fill(''), '4']);
  const wrapped = body
    .slice(0, -1)
    .map((c) => c[2])
    .join('');
  expect(wrapped.replaceAll(' ', '')).toBe(changes.replaceAll(' ', ''));
  expect(body.at(-1)).toEqual(['', '4', 'short', '']);
  expect(fake.out()).not.toContain('…');
});
