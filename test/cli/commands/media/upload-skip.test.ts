/**
 * `media upload --skip-existing`: a file whose name and size match a medium already there and
 * whose SHA-256 matches that medium's content is skipped and reported, so re-running the same
 * upload is a no-op. In-process against a real server.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';

let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed();
});
afterAll(async () => {
  await srv?.close();
});

const file = (name: string, content: string) => {
  const path = join(srv.dataDir, name);
  writeFileSync(path, content);
  return path;
};
const total = async () =>
  JSON.parse((await srv.run(['media', 'list', '--all'])).stdout).length as number;

describe('media upload --skip-existing', () => {
  it('a re-run of the same upload uploads nothing and says which files it skipped', async () => {
    const a = file('same-a.txt', 'alpha\n');
    const b = file('same-b.txt', 'bravo bravo\n');
    const first = await srv.run(['media', 'upload', a, b]);
    expect(first.exitCode, first.stderr).toBe(0);
    const ids = JSON.parse(first.stdout).map((m: { id: string }) => m.id);
    const before = await total();

    const again = await srv.run(['media', 'upload', '--skip-existing', a, b]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([]);
    expect(again.stderr).toContain(`skipped ${a}: already there as ${ids[0]}`);
    expect(again.stderr).toContain(`skipped ${b}: already there as ${ids[1]}`);
    expect(again.stderr).toMatch(/0 uploaded, 2 skipped, 0 failed/);
    expect(await total()).toBe(before);
  });

  it('names with quotes, non-ASCII and control characters: stored as sent (less the controls), skipped on a re-run', async () => {
    const quoted = file('a b ü "q".txt', 'quoted\n');
    const escaped = file('evil\u001b[31m.txt', 'escaped\n');
    // WHATWG's form encoding cannot tell a literal %22 from an encoded quote: it reads as one.
    const percent = file('50%22off.txt', 'percent\n');
    const first = await srv.run(['media', 'upload', quoted, escaped, percent]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).map((m: { fileName: string }) => m.fileName)).toEqual([
      'a b ü "q".txt',
      'evil[31m.txt',
      '50"off.txt',
    ]);
    const again = await srv.run(['media', 'upload', '--skip-existing', quoted, escaped, percent]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/0 uploaded, 3 skipped, 0 failed/);
  });

  it('same name and size but other bytes: uploaded; only that candidate was downloaded', async () => {
    const path = file('changed.txt', 'version 1\n');
    expect((await srv.run(['media', 'upload', path])).exitCode).toBe(0);
    file('changed.txt', 'version 2\n'); // same length, other content
    const r = await srv.run(['media', 'upload', '--skip-existing', '--verbose', path]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
    // Every other medium differs in name or size: only the one candidate is fetched and hashed.
    expect(r.stderr.match(/→ GET \S*\/cdn\//g)).toHaveLength(1);
  });

  it('two identical files in one run (same name, size and bytes) upload once', async () => {
    const dirA = mkdtempSync(join(srv.dataDir, 'dup-a-'));
    const dirB = mkdtempSync(join(srv.dataDir, 'dup-b-'));
    const dirC = mkdtempSync(join(srv.dataDir, 'dup-c-'));
    const a = join(dirA, 'dup.txt');
    const b = join(dirB, 'dup.txt');
    const c = join(dirC, 'dup.txt');
    writeFileSync(a, 'the same\n');
    writeFileSync(b, 'the same\n');
    writeFileSync(c, 'othersame\n'); // same name and size, other bytes: its own medium
    const before = await total();
    const r = await srv.run(['media', 'upload', '--skip-existing', a, b, c]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    expect(r.stderr).toContain(`skipped ${b}: the same file as ${a} in this run`);
    expect(r.stderr).toMatch(/2 uploaded, 1 skipped, 0 failed/);
    expect(await total()).toBe(before + 2);
  });

  it('new files upload beside the skipped ones', async () => {
    const old = file('kept.txt', 'kept\n');
    expect((await srv.run(['media', 'upload', old])).exitCode).toBe(0);
    const fresh = file('fresh.txt', 'fresh\n');
    const r = await srv.run(['media', 'upload', '--skip-existing', old, fresh]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((m: { fileName: string }) => m.fileName)).toEqual([
      'fresh.txt',
    ]);
    expect(r.stderr).toMatch(/1 uploaded, 1 skipped, 0 failed/);
  });
});
