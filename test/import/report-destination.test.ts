/**
 * `--report FILE` in a shared directory: a name someone planted there (a symlink to a victim
 * file, a directory, a named pipe) is refused, never written through; a new report is made
 * beside and renamed into place, 0600, whatever was there. The CLI's run() in-process against a
 * real server on a real port.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { destinationError } from '../../src/files/destination.js';
import { scratch } from '../helpers/scratch.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { importViaCli } from './helpers.js';

const dirs = scratch();

let server: TestServer;
let dir: string;
let file: string;
let victim: string;
beforeEach(async () => {
  server = await startServer();
  dir = dirs.temp('roster-report-dest-');
  file = join(dir, 'people.csv');
  writeFileSync(file, 'externalId,email\nE-1,ann@example.com\nE-2,bob@example.com\n');
  victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'precious\n', { mode: 0o644 });
});
afterEach(async () => {
  await server.close();
  await dirs.cleanup();
});

const roster = (...args: string[]) => importViaCli(server, join(dir, 'config'), args);

describe('--report at a path that is not a regular file', () => {
  it.each([
    ['a symlink to another file', (p: string) => symlinkSync(victim, p), 'a symbolic link'],
    [
      'a dangling symlink',
      (p: string) => symlinkSync(join(dir, 'nowhere.txt'), p),
      'a symbolic link',
    ],
    ['a directory', (p: string) => mkdirSync(p), 'a directory'],
    ['a named pipe', (p: string) => execFileSync('mkfifo', [p]), 'a named pipe'],
  ])(
    '%s: refused before any row (exit 1, as a destination that cannot be written), nothing written through it',
    async (_n, plant, what) => {
      const link = join(dir, 'link.csv');
      plant(link);
      for (const dry of [[], ['--dry-run']]) {
        const r = await roster(file, '--no-send-mail', ...dry, '--report', link);
        expect(r.code, r.err).toBe(1);
        expect(r.err).toContain(`cannot write ${link}: it is`);
        expect(r.err).toContain(what);
      }
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
      expect(statSync(victim).mode & 0o777).toBe(0o644);
      expect(() => lstatSync(join(dir, 'nowhere.txt'))).toThrow();
      const listed = await server.req('GET', '/api/users');
      expect(listed.json.data ?? listed.json).toEqual([]);
    },
  );

  it('an existing regular file is replaced by a new report (temp + rename), 0600', async () => {
    const report = join(dir, 'run.csv');
    writeFileSync(report, 'old\n');
    chmodSync(report, 0o644);
    const before = statSync(report).ino;
    const r = await roster(file, '--no-send-mail', '--report', report);
    expect(r.code, r.err).toBe(0);
    expect(statSync(report).mode & 0o777).toBe(0o600);
    expect(statSync(report).ino).not.toBe(before);
    expect(readFileSync(report, 'utf8')).toMatch(
      /^row,line,key,action,id,status,error,invitation\n/,
    );
  });

  it('--resume: the report being resumed is appended to, but never through a symlink', async () => {
    const real = join(dir, 'real.csv');
    const first = await roster(file, '--no-send-mail', '--report', real);
    expect(first.code, first.err).toBe(0);
    const resumed = await roster('--resume', real, '-o', 'json');
    expect(resumed.code, resumed.err).toBe(0);
    expect(statSync(real).mode & 0o777).toBe(0o600);

    // The same report reached through a link (its record beside the link): refused.
    const link = join(dir, 'link.csv');
    symlinkSync(real, link);
    writeFileSync(`${link}.run.json`, readFileSync(`${real}.run.json`));
    const before = readFileSync(real, 'utf8');
    const through = await roster('--resume', link);
    expect(through.code, through.err).toBe(1);
    expect(through.err).toContain('a symbolic link');
    expect(readFileSync(real, 'utf8')).toBe(before);
  });

  it('a link swapped in after the check (O_NOFOLLOW meets it): one line naming it, not a raw ELOOP', () => {
    const link = join(dir, 'late.csv');
    symlinkSync(victim, link);
    let err: unknown;
    try {
      openSync(link, constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW);
    } catch (e) {
      err = destinationError(link, e);
    }
    expect(String(err)).toContain(
      `cannot write ${link}: it is a symbolic link, and it is not followed`,
    );
  });
});
