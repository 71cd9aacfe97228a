/**
 * `roster users import` as a user runs it: the built CLI against a real `roster serve` in its own
 * process, and killed with -9 mid-run. The rules (bad input, --sync, reports, export → import)
 * run in-process in test/import/import-cli.test.ts.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, type CliServer, startCliServer } from '../helpers/cli-server.js';

let server: CliServer;
const dir = mkdtempSync(join(tmpdir(), 'roster-e2e-import-'));
let branches = 0;

beforeAll(async () => {
  server = await startCliServer();
});
afterAll(async () => {
  await server?.close();
});

const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

/** A CSV of `n` people with keys `<prefix>-<i>`. */
const people = (prefix: string, n: number, department = 'Sales') =>
  `externalId,email,firstName,lastName,department\n${Array.from(
    { length: n },
    (_, i) =>
      `${prefix}-${i},${prefix.toLowerCase()}${i}@example.com,First${i},Last${i},${department}`,
  ).join('\n')}\n`;

/** The CLI with a token of a fresh branch (ROSTER_TOKEN wins over the profile's). */
async function inBranch() {
  const token = await server.token({ branch: `import-${++branches}` });
  const env = { ...server.env, ROSTER_TOKEN: token };
  const run = (args: string[], input?: string) => {
    const r = server.cli(args, { env: { ROSTER_TOKEN: token }, input });
    return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
  const json = (args: string[]) => JSON.parse(run([...args, '-o', 'json']).stdout);
  const users = () =>
    json(['users', 'list', '--all', '--status', 'activated,pending,deactivated']) as {
      externalId: string;
      status: string;
      profile: Record<string, string>;
    }[];
  return { token, env, run, json, users };
}

describe('users import', () => {
  test('dry run, import, idempotent re-run, updates', async () => {
    const { run, json, users } = await inBranch();
    const csv = file('dry.csv', people('D', 5));
    const dry = run(['users', 'import', csv, '--dry-run', '-o', 'table']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Plan for');
    expect(dry.stdout).toMatch(/│ create\s+│ update\s+│ unchanged/);
    expect(dry.stdout).toMatch(/│ 2\s+│ create │ D-0\s+│ email=d0@example.com, firstName=First0/);
    expect(dry.stderr).toContain(
      '5 invitations would be queued by the service (one per new user with an email',
    );
    const quiet = run(['users', 'import', csv, '--dry-run', '--no-send-mail']);
    expect(quiet.stderr).toContain('no invitations would be queued (--no-send-mail; 5 new users');
    expect(json(['users', 'import', csv, '--dry-run']).summary).toEqual({
      created: 5,
      updated: 0,
      unchanged: 0,
      deactivated: 0,
      failed: 0,
      rows: 5,
      invitations: 5,
    });
    expect(users()).toEqual([]);

    expect(json(['users', 'import', csv, '--no-send-mail'])).toMatchObject({
      created: 5,
      failed: 0,
    });
    expect(users()).toHaveLength(5);
    expect(json(['users', 'import', csv])).toEqual({
      created: 0,
      updated: 0,
      unchanged: 5,
      deactivated: 0,
      failed: 0,
      rows: 5,
      invitations: 0,
    });

    const moved = file(
      'moved.csv',
      people('D', 6).replace(
        'D-1,d1@example.com,First1,Last1,Sales',
        'D-1,d1@example.com,First1,Last1,Marketing',
      ),
    );
    const plan = run(['users', 'import', moved, '--dry-run', '-o', 'table']).stdout;
    expect(plan).toMatch(/update │ D-1\s+│ department: Sales → Marketing/);
    expect(json(['users', 'import', moved])).toMatchObject({
      created: 1,
      updated: 1,
      unchanged: 4,
    });
    expect(users().find((u) => u.externalId === 'D-1')!.profile.department).toBe('Marketing');
  });

  test('kill -9 mid-import, then --resume: every row exactly once', async () => {
    const { env, run, users } = await inBranch();
    const n = 400;
    const csv = file('big.csv', people('K', n));
    const report = join(dir, 'kill-report.csv');
    const child = execa(
      process.execPath,
      [BIN, 'users', 'import', csv, '--report', report, '--concurrency', '1', '--no-send-mail'],
      {
        env,
        reject: false,
      },
    );
    const linesOf = () => {
      try {
        return readFileSync(report, 'utf8').split('\n').length - 2;
      } catch {
        return 0;
      }
    };
    while (linesOf() < 40 && child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGKILL');
    const killed = await child;
    expect(killed.signal).toBe('SIGKILL'); // it did not finish before the kill
    const before = linesOf();
    expect(before).toBeLessThan(n);

    const resumed = run([
      'users',
      'import',
      csv,
      '--resume',
      report,
      '--no-send-mail',
      '-o',
      'json',
    ]);
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout);
    expect(summary.skipped).toBeGreaterThanOrEqual(40);
    expect(summary.skipped + summary.created + summary.unchanged).toBe(n);
    expect(summary.failed).toBe(0);

    const keys = users()
      .map((u) => u.externalId)
      .sort();
    expect(keys).toHaveLength(n);
    expect(new Set(keys).size).toBe(n);
    // The report now names each row once, all done.
    const rows = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    expect(rows.map((r) => Number(r[0])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: n }, (_, i) => i + 1),
    );
    expect(rows.every((r) => r[5] === 'ok')).toBe(true);
    // And a re-run after success changes nothing.
    expect(JSON.parse(run(['users', 'import', csv, '-o', 'json']).stdout)).toMatchObject({
      unchanged: n,
      created: 0,
      updated: 0,
    });
  });
});
