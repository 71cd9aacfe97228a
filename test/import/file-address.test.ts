/**
 * A run record (`<report>.run.json`) and a saved plan travel (CI artefacts, a plan sent for
 * review): what they say about where the run goes is checked, never followed. The address comes
 * from the command line or the profile; a file naming another one is refused before any request,
 * so the profile's token never reaches the address a file names. The CLI's run() in-process,
 * with a profile (no ROSTER_TOKEN), against a real server, and a second real listener on another
 * port that records every request reaching it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { continueHint } from '../../src/cli/commands/users/import/resume.js';
import { type CliRun, cliWith } from '../helpers/cli-run.js';
import { type FakeServer, startServer as startListener } from '../helpers/fake-server.js';
import { scratch } from '../helpers/scratch.js';
import { startServer, type TestServer } from '../helpers/server.js';

const dirs = scratch();

let server: TestServer;
let other: FakeServer;
let dir: string;
let file: string;
let roster: CliRun;

/** A config dir whose current profile is the real server's, its token included. */
function profileFor(baseUrl: string, token: string) {
  const config = mkdtempSync(join(dir, 'config-'));
  const profiles = { local: { baseUrl, token } };
  writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  return cliWith({ ROSTER_CONFIG_DIR: config, HOME: config });
}

beforeEach(async () => {
  server = await startServer();
  other = await startListener((_req, res) => {
    res.writeHead(500).end();
  });
  dir = dirs.temp('roster-file-address-');
  file = join(dir, 'people.csv');
  writeFileSync(
    file,
    'externalId,email,firstName\nE-1,ann@example.com,Ann\nE-2,bob@x.example,Bob\n',
  );
  roster = profileFor(`${server.url}/api`, server.adminToken);
});
afterEach(async () => {
  await other.close();
  await server.close();
  await dirs.cleanup();
});

const edit = (path: string, change: (json: any) => void) => {
  const json = JSON.parse(readFileSync(path, 'utf8'));
  change(json);
  writeFileSync(path, JSON.stringify(json));
};
const importing = (...args: string[]) => roster(['users', 'import', ...args]);

/** Nothing reached the other listener: no request, no connection, so no token either. */
function nothingReached(listener: FakeServer) {
  expect(listener.seen.map((s) => `${s.method} ${s.url} ${s.headers.authorization ?? ''}`)).toEqual(
    [],
  );
  expect(listener.connections()).toBe(0);
}

describe('a run record or a saved plan naming another address', () => {
  it('--resume: a record whose base URL and target name another host is refused before any request (exit 2), naming both', async () => {
    const report = join(dir, 'run.csv');
    const first = await importing(file, '--no-send-mail', '--report', report);
    expect(first.code, first.stderr).toBe(0);
    edit(`${report}.run.json`, (r) => {
      r.connection.baseUrl = other.baseUrl;
      r.target.baseUrl = other.baseUrl;
      r.target.tenant = new URL(other.baseUrl).host;
    });
    const resumed = await importing('--resume', report);
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toContain(other.baseUrl);
    expect(resumed.stderr).toContain(`${server.url}/api`);
    expect(resumed.stderr).toContain(`${report}.run.json`);
    nothingReached(other);
  });

  it('--resume: the record is refused with no request at all, to the profile’s service either', async () => {
    const report = join(dir, 'run.csv');
    expect((await importing(file, '--no-send-mail', '--report', report)).code).toBe(0);
    // The profile now points at the recording listener; the record names the real server.
    const recorder = profileFor(other.baseUrl, 'the-profile-token');
    const resumed = await recorder(['users', 'import', '--resume', report]);
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toContain(`${server.url}/api`);
    expect(resumed.stderr).toContain(other.baseUrl);
    nothingReached(other);
  });

  it('--resume: a connection.baseUrl alone (the target left as it was) is refused too', async () => {
    const report = join(dir, 'run.csv');
    expect((await importing(file, '--no-send-mail', '--report', report)).code).toBe(0);
    edit(`${report}.run.json`, (r) => {
      r.connection.baseUrl = other.baseUrl;
    });
    const resumed = await importing('--resume', report);
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toContain(other.baseUrl);
    nothingReached(other);
  });

  it('--resume of a run started with --base-url and ROSTER_TOKEN: given again, it continues; the hint says so', async () => {
    const report = join(dir, 'run.csv');
    const env = { env: { ROSTER_TOKEN: server.adminToken } };
    const base = ['--base-url', `${server.url}/api`];
    const first = await roster(
      [...base, 'users', 'import', file, '--no-send-mail', '--report', report],
      env,
    );
    expect(first.code, first.stderr).toBe(0);
    // Without it, the command goes to the profile's service: refused, saying what to give.
    const bare = await roster(['users', 'import', '--resume', report], {
      env: { ROSTER_TOKEN: server.adminToken, ROSTER_BASE_URL: other.baseUrl },
    });
    expect(bare.code, bare.stderr).toBe(2);
    expect(bare.stderr).toContain(`--base-url ${server.url}/api`);
    nothingReached(other);
    const again = await roster([...base, 'users', 'import', '--resume', report, '-o', 'json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ skipped: 2 });
    // The hint of a run stopped part-way gives the address again, as the resume needs it.
    const run = { file, options: { sendMail: false }, globals: { baseUrl: `${server.url}/api` } };
    expect(continueHint(run, report)).toContain(`--resume ${report} --base-url ${server.url}/api`);
  });

  it('--plan: a plan naming another host is refused before any request (exit 2), naming both', async () => {
    const plan = join(dir, 'plan.json');
    const dry = await importing(file, '--dry-run', '--no-send-mail', '--save-plan', plan);
    expect(dry.code, dry.stderr).toBe(0);
    edit(plan, (p) => {
      p.connection = { baseUrl: other.baseUrl };
      p.target.baseUrl = other.baseUrl;
    });
    const applied = await importing('--plan', plan);
    expect(applied.code, applied.stderr).toBe(2);
    expect(applied.stderr).toContain(other.baseUrl);
    expect(applied.stderr).toContain(`${server.url}/api`);
    expect(applied.stderr).toContain(plan);
    nothingReached(other);
  });
});

describe('a run record or a saved plan that is not what Roster writes', () => {
  it('a field of the wrong kind is refused naming the file and the field (exit 2), not a crash', async () => {
    const report = join(dir, 'run.csv');
    expect((await importing(file, '--no-send-mail', '--report', report)).code).toBe(0);
    edit(`${report}.run.json`, (r) => {
      r.options.sync = true;
      r.options.maxDeactivate = 100000;
    });
    const resumed = await importing('--resume', report);
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toContain(`${report}.run.json`);
    expect(resumed.stderr).toContain('options.maxDeactivate');
    expect(resumed.stderr).not.toContain("Cannot use 'in' operator");

    const plan = join(dir, 'plan.json');
    expect((await importing(file, '--dry-run', '--save-plan', plan)).code).toBe(0);
    edit(plan, (p) => {
      p.rows[0].changes = 'all of them';
    });
    const applied = await importing('--plan', plan);
    expect(applied.code, applied.stderr).toBe(2);
    expect(applied.stderr).toContain(plan);
    expect(applied.stderr).toContain('rows.0.changes');
  });

  it('a saved plan holding rows its input does not have is refused, naming them; nothing applied', async () => {
    const plan = join(dir, 'plan.json');
    expect((await importing(file, '--dry-run', '--no-send-mail', '--save-plan', plan)).code).toBe(
      0,
    );
    edit(plan, (p) => {
      p.rows.push({ row: 7, line: 8, key: 'E-7', action: 'create', changes: {} });
    });
    const applied = await importing('--plan', plan);
    expect(applied.code, applied.stderr).toBe(2);
    expect(applied.stderr).toContain('row 7');
    const listed = await roster(['users', 'list', '-o', 'json']);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });
});
