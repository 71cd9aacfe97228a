/**
 * #24: a value from the CSV (or a file name) quoted into an error is data: a raw newline or escape sequence in it
 * is shown escaped, so one error stays one line and nothing reaches the terminal as a command.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();

let s: CliServed;
let dir: string;
beforeAll(async () => {
  s = await startCliServed();
  dir = dirs.temp('roster-escaped-');
});
afterAll(async () => {
  await s.close();
  await dirs.cleanup();
});

const csv = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('CSV values quoted into import errors', () => {
  it('a duplicated key with a newline and an escape sequence is one escaped line per row', async () => {
    const file = csv(
      'dupes.csv',
      'externalId,email\n"E\n1\u001b[2J",a@example.com\n"E\n1\u001b[2J",b@example.com\n',
    );
    const r = await s.run(['users', 'import', file, '--dry-run', '-o', 'ndjson', '--no-send-mail']);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const errors = rows.map((row) => row.error).filter(Boolean);
    expect(errors).toHaveLength(2);
    for (const e of errors) {
      expect(e).toContain("externalId 'E\\x0a1\\x1b[2J' appears on several lines");
      // biome-ignore lint/suspicious/noControlCharactersInRegex: that no control character is left is the point.
      expect(e).not.toMatch(/[\n\u001b]/);
    }
  });

  it('an unknown column whose header holds a newline is named on one line', async () => {
    const file = csv('header.csv', 'externalId,"Cost\nCenter"\nE1,42\n');
    const r = await s.run(['users', 'import', file, '--dry-run']);
    expect(r.exitCode).toBe(2);
    const line = r.stderr.split('\n').find((l) => l.includes('Cost'));
    expect(line).toContain("'Cost\\x0aCenter'");
  });
});

describe('file names quoted into media upload errors', () => {
  it('a missing file with a newline in its name: every line names it escaped', async () => {
    const r = await s.run(['media', 'upload', join(dir, 'a\nb.png')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`failed ${join(dir, 'a\\x0ab.png')}: no such file`);
    expect(r.stderr).toContain(`error: ${join(dir, 'a\\x0ab.png')} was not uploaded`);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('b.png'))).toEqual([]);
  });

  it('a directory with a newline in its name fails on one line', async () => {
    const sub = join(dir, 'x\ny');
    mkdirSync(sub);
    const r = await s.run(['media', 'upload', sub]);
    const failed = r.stderr.split('\n').filter((l) => l.startsWith('failed'));
    expect(failed).toEqual([
      expect.stringContaining(`failed ${join(dir, 'x\\x0ay')}: is a directory`),
    ]);
  });
});
