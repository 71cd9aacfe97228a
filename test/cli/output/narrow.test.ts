/**
 * Tables on terminals of every width (issue #24 item 4): the CLI's run() in-process on a
 * "terminal" of 30/60/70/80/120 columns against a real server. A table is never wider than the
 * terminal, ids are never cut (empty columns go first, then the least kept), and below 40
 * columns each record prints as a block. test/e2e/narrow-terminal.test.ts checks one width
 * through a real pseudo-terminal.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/main.js';
import { displayWidth } from '../../../src/cli/output/table.js';
import { type CliServed, startCliServed } from '../../helpers/cli-run.js';
import { scratch } from '../../helpers/scratch.js';
import { fakeIO } from '../helpers.js';

const dirs = scratch();

let srv: CliServed;
const ids: string[] = [];
const mediaIds: string[] = [];

/** `roster ARGS` with stdout, stderr and stdin on a terminal `columns` wide. */
async function onTerminal(columns: number, args: string[]) {
  const fake = fakeIO({ tty: true });
  fake.io.columns = columns;
  const code = await run(['node', 'roster', ...args], {
    io: fake.io,
    env: { NO_COLOR: '1', ...srv.env },
  });
  return { code, stdout: fake.out(), stderr: fake.err() };
}

const lines = (text: string) => text.trimEnd().split('\n');
const headers = (table: string) =>
  lines(table)[1]!
    .split('│')
    .map((c) => c.trim())
    .filter(Boolean);

beforeAll(async () => {
  srv = await startCliServed();
  const invite = async (...flags: string[]) => {
    const r = await srv.run(['users', 'invite', '--no-send-mail', '--role', 'editor', ...flags]);
    expect(r.exitCode, r.stderr).toBe(0);
    ids.push(JSON.parse(r.stdout).id);
  };
  // Nobody has a userName: that column is empty.
  await invite(
    ...['--email', 'ann.archer@a-very-long-domain.example.com', '--external-id', 'E-1001'],
    ...['--first-name', 'Ann', '--last-name', 'Archer'],
  );
  await invite('--email', 'bob@example.com', '--first-name', 'Bob', '--last-name', 'Brown');
  const dir = dirs.temp('roster-narrow-');
  const file = join(dir, 'a-rather-long-holiday-photo-name-from-2024.txt');
  writeFileSync(file, 'some text\n');
  const up = await srv.run(['media', 'upload', file]);
  expect(up.exitCode, up.stderr).toBe(0);
  mediaIds.push(...JSON.parse(up.stdout).map((m: { id: string }) => m.id));
});
afterAll(async () => {
  await srv?.close();
  await dirs.cleanup();
});

describe.each([30, 60, 70, 80, 120])('at %i columns', (columns) => {
  it.each([
    ['users', () => ids],
    ['media', () => mediaIds],
  ])('%s list fits, and every id is there whole', async (group, idsOf) => {
    const r = await onTerminal(columns, [group, 'list']);
    expect(r.code, r.stderr).toBe(0);
    for (const line of lines(r.stdout)) expect(displayWidth(line)).toBeLessThanOrEqual(columns);
    for (const id of idsOf()) expect(r.stdout).toMatch(new RegExp(`(^|[│ ])${id}([ │]|$)`, 'm'));
    if (columns < 40) {
      expect(r.stdout).toMatch(/^-\[ RECORD 1 \]─+$/m);
      expect(r.stdout).not.toContain('┌');
    } else {
      expect(r.stdout).toMatch(/^┌/);
    }
  });
});

describe('which columns give way', () => {
  it('users list: an empty column goes before anything is cut; then role and externalId', async () => {
    const wide = await onTerminal(120, ['users', 'list']);
    expect(headers(wide.stdout)).toEqual([
      ...['id', 'externalId', 'email', 'firstName', 'lastName', 'role', 'status'],
    ]);
    // An empty column is not worth a note.
    expect(wide.stderr).not.toContain('hidden');
    const at80 = await onTerminal(80, ['users', 'list']);
    expect(headers(at80.stdout)).toEqual(['id', 'email', 'firstName', 'lastName', 'status']);
    expect(at80.stderr).toBe('hidden to fit 80 columns: externalId, role (-o wide shows all)\n');
    const at60 = await onTerminal(60, ['users', 'list']);
    expect(headers(at60.stdout)).toEqual(['id', 'email', 'status']);
  });

  it('users list at 80 columns: the email is cut last, and in its middle (both ends stay)', async () => {
    const r = await onTerminal(80, ['users', 'list', '--fields', 'id,email,position,status']);
    expect(r.code, r.stderr).toBe(0);
    const ann = lines(r.stdout).find((l) => l.includes(ids[0]!))!;
    expect(displayWidth(ann)).toBeLessThanOrEqual(80);
    expect(ann).toMatch(/│ ann\.archer@a-ve\S*…\S*example\.com +│/);
  });

  it('users list in blocks below 40 columns: every field, long values wrapped', async () => {
    const r = await onTerminal(30, ['users', 'list']);
    const first = r.stdout.split(/^-\[ RECORD 2 \].*$/m)[0]!;
    expect(first).toMatch(/^id +│ *$/m); // the id's own line follows: 24 cells do not fit beside
    expect(first).toMatch(/^email +│ ann\.archer@/m);
    expect(first).toMatch(/^externalId │ E-1001$/m);
  });

  it('-o wide is not fitted', async () => {
    const r = await onTerminal(60, ['-o', 'wide', 'users', 'list']);
    expect(r.stdout).toContain('ann.archer@a-very-long-domain.example.com');
    expect(headers(r.stdout)).toContain('userName');
  });

  it.each([30, 45])('users show at %i columns: one block, the id whole', async (columns) => {
    const r = await onTerminal(columns, ['users', 'show', ids[0]!]);
    expect(r.code, r.stderr).toBe(0);
    for (const line of lines(r.stdout)) expect(displayWidth(line)).toBeLessThanOrEqual(columns);
    expect(r.stdout).toMatch(/^-\[ RECORD 1 \]/);
    expect(r.stdout).toMatch(new RegExp(`(^|│ )${ids[0]}$`, 'm'));
  });

  it('media show at 80 columns: a signed URL on one line, its middle elided; whole when piped', async () => {
    const r = await onTerminal(80, ['media', 'show', mediaIds[0]!]);
    expect(r.code, r.stderr).toBe(0);
    const url = lines(r.stdout).filter((l) => /^resourceInfo\.url/.test(l));
    expect(url).toHaveLength(1);
    expect(url[0]).toMatch(/│ http:\/\/127\.0\.0\.1:\d+\/\S*…\S+$/);
    // The next line is the next field, not the URL going on.
    const next = lines(r.stdout)[lines(r.stdout).indexOf(url[0]!) + 1]!;
    expect(next).toMatch(/^\S/);
    const piped = await srv.run(['media', 'show', mediaIds[0]!, '-o', 'table']);
    expect(piped.stdout).toMatch(/http:\/\/\S+\?expires=\d+&signature=[\w-]+/);
    expect(piped.stdout).not.toContain('…');
  });

  it('users show on a wide terminal: the field/value table', async () => {
    const r = await onTerminal(120, ['users', 'show', ids[0]!]);
    expect(r.stdout).toMatch(/^│ field +│ value +│$/m);
    expect(r.stdout).toContain(`│ ${ids[0]} `);
  });
});
