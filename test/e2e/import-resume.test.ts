/**
 * A resumed run is the same run (issue "import you can trust", defect 1). The built CLI imports
 * an HR export whose options matter (no invitations, column maps, a status column, unknown
 * columns) through a proxy that holds the Nth create; the test interrupts it there — SIGINT,
 * SIGTERM, or the service dying with that create committed — then runs the printed hint
 * literally in a shell. The end state must be that of one uninterrupted run.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type ApiClient, createApiClient } from '../../src/client/index.js';
import { BACKEND } from '../helpers/database.js';
import { BIN, start } from '../helpers/e2e.js';
import { eventually } from '../helpers/eventually.js';
import { type HoldProxy, holdProxy } from '../helpers/hold-proxy.js';
import { scratch } from '../helpers/scratch.js';
import { startServer, type TestServer } from '../helpers/server.js';

const dirs = scratch();

// Which create is held: seeded, so a failure names the point it was stopped at.
const SEED = Number(process.env.ROSTER_TEST_SEED ?? 11);
const HELD = 3 + ((SEED * 7) % 20);
const ROWS = 30;

let server: TestServer;
let proxy: HoldProxy;
let client: ApiClient;
let dir: string;
let shim: string;

beforeEach(async () => {
  server = await startServer();
  client = createApiClient({ baseUrl: `${server.url}/api`, token: server.adminToken });
  proxy = await holdProxy(
    server.url,
    (req) => req.method === 'POST' && req.url === '/api/users',
    HELD,
  );
  dir = dirs.temp('roster-resume-');
  // `roster` on PATH, so the printed hint runs exactly as a person would paste it.
  shim = join(dir, 'bin');
  writeFileSync(join(dir, 'roster'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(dir, 'roster'), 0o755);
  shim = dir;
});
afterEach(async () => {
  await proxy.close();
  await client.close();
  await server.close();
  await dirs.cleanup();
});

/** An HR export: Active people and leavers, a column Roster does not know. */
function hrExport(): string {
  const lines = ['Personnel No,Work Email,First Name,Last Name,Status,Hire Date'];
  for (let i = 1; i <= ROWS; i++) {
    const status = i % 6 === 0 ? 'Terminated' : 'Active';
    lines.push(`P${i},p${i}@example.com,First${i},Last${i},${status},2024-01-0${(i % 9) + 1}`);
  }
  const file = join(dir, 'hr.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
const ACTIVE = Array.from({ length: ROWS }, (_, i) => i + 1).filter((i) => i % 6 !== 0);

const env = () => ({
  ROSTER_BASE_URL: `${proxy.url}/api`,
  ROSTER_TOKEN: server.adminToken,
  ROSTER_CONFIG_DIR: join(dir, 'config'),
  NO_COLOR: '1',
  PATH: `${shim}:${process.env.PATH}`,
});

const OPTIONS = [
  '--map',
  'Personnel No=externalId',
  '--map',
  'Work Email=email',
  '--status-column',
  'Status',
  '--active-values',
  'Active',
  '--ignore-unknown',
  // One at a time: nothing passes the held create, so the run is stopped part-way on any machine.
  '--concurrency',
  '1',
];

async function users() {
  const all = [];
  for await (const u of client.iterateUsers({ status: ['activated', 'pending', 'deactivated'] })) {
    all.push(`${u.externalId} ${u.email?.value} ${u.profile.firstName} ${u.status}`);
  }
  return all.sort();
}
const expectedUsers = () => ACTIVE.map((i) => `P${i} p${i}@example.com First${i} pending`).sort();

async function mails(): Promise<string[]> {
  await eventually(async () => (await server.store.outbox.pending()) === 0);
  const outbox = join(server.dataDir, 'outbox');
  if (!existsSync(outbox)) return [];
  return readdirSync(outbox)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => /^To: (.+)$/im.exec(readFileSync(join(outbox, f), 'utf8'))?.[1]?.trim() ?? f)
    .sort();
}

/** Every row once in the report, done: the leavers as leavers, the rest created. */
function reportRows(report: string) {
  const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
  const byRow = new Map(lines.map((l) => [Number(l.split(',')[0]), l.split(',')]));
  return {
    lines: lines.length,
    rows: byRow.size,
    actions: [...byRow.values()].map((c) => `${c[3]} ${c[5]}`).sort(),
  };
}

type Stop = 'SIGINT' | 'SIGTERM' | 'service dies';

async function interruptedRun(stop: Stop, extra: string[]) {
  const file = hrExport();
  const report = join(dir, 'run.csv');
  const child = start(['users', 'import', file, ...OPTIONS, ...extra, '--report', report], {
    env: env(),
    stdin: 'ignore',
  });
  await proxy.held;
  if (stop === 'service dies') {
    await proxy.die();
  } else {
    const stopping = child.waitFor('stopping:');
    child.kill(stop);
    await stopping; // the CLI has taken the signal: nothing new is sent after the held create
    proxy.release();
  }
  const first = await child.done;
  if (stop === 'service dies') await proxy.revive();
  return { first, report, file };
}

const cases: [Stop, string[], number][] = [
  ['SIGINT', ['--no-send-mail'], 130],
  ['SIGTERM', [], 143],
  ['service dies', ['--no-send-mail'], 1],
];
// On PostgreSQL the case whose end state the store decides: the service dies with the held create
// committed. A signal stops the CLI alone, the same process on either backend, and those cases
// run once, on SQLite (each costs two CLI processes and a few seconds).
const here = BACKEND === 'postgres' ? cases.filter(([stop]) => stop === 'service dies') : cases;

describe(`an interrupted import, resumed by its printed hint (create #${HELD} held)`, () => {
  test.each(here)('%s, %j: the end state is one uninterrupted run', async (stop, extra, code) => {
    const { first, report, file } = await interruptedRun(stop, extra);
    expect(first.exitCode, first.stderr).toBe(code);
    const hint = /continue with: (.+)$/m.exec(first.stderr)?.[1];
    expect(hint, first.stderr).toBe(`roster users import --resume ${report}`);
    const record = join(dir, 'run.csv.run.json');
    expect(JSON.parse(readFileSync(record, 'utf8')).options).toMatchObject({
      sendMail: !extra.includes('--no-send-mail'),
      statusColumn: 'Status',
    });
    expect(readFileSync(report, 'utf8').trim().split('\n').length - 1).toBeLessThan(ROWS);

    const again = (args: string[]) => start(['users', 'import', ...args], { env: env() }).done;
    if (stop === 'SIGINT') {
      // An option that shapes the data, given again with another value, is refused by name.
      const mail = await again(['--resume', report, '--send-mail']);
      expect(mail.exitCode).toBe(2);
      expect(mail.stderr).toContain(
        `--send-mail: the run in ${report} was started with --no-send-mail`,
      );
      // The same values again, and a setting that does not shape the data, are fine.
      const same = await again([
        file,
        '--resume',
        report,
        '--no-send-mail',
        '--concurrency',
        '2',
        '--dry-run',
      ]);
      expect(same.exitCode, same.stderr).toBe(0);
    }

    const second = await execa('sh', ['-c', hint!], { env: env(), reject: false });
    expect(second.exitCode, second.stderr).toBe(0);

    expect(await users()).toEqual(expectedUsers());
    const invited = extra.includes('--no-send-mail')
      ? []
      : ACTIVE.map((i) => `p${i}@example.com`).sort();
    expect(await mails()).toEqual(invited);
    const rows = reportRows(report);
    // Every row once, done: where the service died, the held create's lost answer made a failed
    // line, which gave way to the resume's (it found its user there and converged: unchanged).
    expect([rows.lines, rows.rows]).toEqual([ROWS, ROWS]);
    expect(rows.actions.filter((a) => a.endsWith(' ok'))).toHaveLength(ROWS);
    expect(rows.actions.filter((a) => a.startsWith('leaver '))).toHaveLength(ROWS - ACTIVE.length);

    if (stop === 'SIGINT') {
      // The input is fingerprinted: a changed file is not the run's input.
      writeFileSync(
        file,
        `${readFileSync(file, 'utf8')}P99,p99@example.com,A,B,Active,2024-01-01\n`,
      );
      const changed = await again(['--resume', report]);
      expect(changed.exitCode).toBe(2);
      expect(changed.stderr).toMatch(
        /hr\.csv is not the input of .*run\.csv .* its size was \d+ bytes and is \d+ now/,
      );
    }
  });
});
