/**
 * `roster users import` as a user runs it: the built CLI against a real server, and killed with
 * -9 mid-run. The rules (bad input, --sync, reports, export → import)
 * run in-process in test/import/import-cli.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Served, serve } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';
import { people, tempCsv } from '../import/helpers.js';

const dirs = scratch();

let server: Served;
const dir = dirs.temp('roster-e2e-import-');
let branches = 0;

beforeAll(async () => {
  server = await serve();
});
afterAll(async () => {
  await server?.close();
  await dirs.cleanup();
});

const file = (name: string, content: string) => tempCsv(content, name);

/** The CLI with a token of a fresh branch (ROSTER_TOKEN wins over the profile's). */
async function inBranch() {
  const token = await server.token({ branch: `import-${++branches}` });
  const run = async (args: string[], input?: string) => {
    const r = await server.run(args, { env: { ROSTER_TOKEN: token }, input });
    return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
  };
  const json = async (args: string[]) => JSON.parse((await run([...args, '-o', 'json'])).stdout);
  const users = async () =>
    (await json(['users', 'list', '--all', '--status', 'activated,pending,deactivated'])) as {
      externalId: string;
      status: string;
      profile: Record<string, string>;
    }[];
  return { token, run, json, users };
}

describe('users import', () => {
  test('kill -9 mid-import, then --resume: every row exactly once', async () => {
    const { token, run, users } = await inBranch();
    const n = 400;
    const csv = file('big.csv', people('K', n));
    const report = join(dir, 'kill-report.csv');
    const child = server.start(
      ['users', 'import', csv, '--report', report, '--concurrency', '1', '--no-send-mail'],
      { env: { ROSTER_TOKEN: token } },
    );
    const linesOf = () => {
      try {
        return readFileSync(report, 'utf8').split('\n').length - 2;
      } catch {
        return 0;
      }
    };
    while (linesOf() < 40 && child.child.exitCode === null)
      await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGKILL');
    const killed = await child.done;
    expect(killed.signal).toBe('SIGKILL'); // it did not finish before the kill
    const before = linesOf();
    expect(before).toBeLessThan(n);

    const resumed = await run([
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

    const keys = (await users()).map((u) => u.externalId).sort();
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
    expect(JSON.parse((await run(['users', 'import', csv, '-o', 'json'])).stdout)).toMatchObject({
      unchanged: n,
      created: 0,
      updated: 0,
    });
  });
});
