/**
 * Saved plans (`--dry-run --save-plan`, then `--plan`): what was reviewed is what happens, or
 * nothing happens. The CLI's run() in-process against a real server on a real port.
 */
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../src/client/index.js';
import { scratch } from '../helpers/scratch.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { importViaCli } from './helpers.js';

const dirs = scratch();

let server: TestServer;
let client: ApiClient;
let dir: string;
let file: string;
let bob: string;
beforeEach(async () => {
  server = await startServer();
  client = createApiClient({ baseUrl: `${server.url}/api`, token: server.adminToken });
  dir = dirs.temp('roster-saved-plan-');
  file = join(dir, 'people.csv');
  writeFileSync(
    file,
    'externalId,email,firstName,secret\nE-1,ann@example.com,Ann,s3cret-pass-1\nE-2,bob@example.com,Bob,\nE-3,cem@example.com,Cem,\n',
  );
  bob = (
    await client.createUser({
      externalId: 'E-2',
      email: 'bob@example.com',
      profile: { firstName: 'Robert' },
      sendMail: false,
    })
  ).user.id;
});
afterEach(async () => {
  await client.close();
  await server.close();
  await dirs.cleanup();
});

const roster = (...args: string[]) => importViaCli(server, join(dir, 'config'), args);

async function names() {
  const all: string[] = [];
  for await (const u of client.iterateUsers({ status: ['activated', 'pending'] })) {
    all.push(`${u.externalId} ${u.profile.firstName}`);
  }
  return all.sort();
}

describe('saved plans', () => {
  it('are saved 0600 without secrets, and applied exactly (the file and options from the plan)', async () => {
    const plan = join(dir, 'plan.json');
    const dry = await roster(file, '--dry-run', '--no-send-mail', '--save-plan', plan);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.err).toContain(`apply exactly it with: roster users import --plan ${plan}`);
    expect(statSync(plan).mode & 0o777).toBe(0o600);
    const text = readFileSync(plan, 'utf8');
    expect(text).not.toContain('s3cret');
    const saved = JSON.parse(text);
    expect(saved.options).toMatchObject({ sendMail: false });
    expect(saved.rows[1]).toEqual({
      row: 2,
      line: 3,
      key: 'E-2',
      action: 'update',
      id: bob,
      changes: { firstName: { from: 'Robert', to: 'Bob' } },
    });

    const report = join(dir, 'run.csv');
    const applied = await roster('--plan', plan, '--report', report, '-o', 'json');
    expect(applied.code, applied.err).toBe(0);
    expect(JSON.parse(applied.out)).toMatchObject({ created: 2, updated: 1, invitations: 0 });
    expect(await names()).toEqual(['E-1 Ann', 'E-2 Bob', 'E-3 Cem']);
    // The run records its plan: a resume applies the same plan (here: nothing is left).
    expect(JSON.parse(readFileSync(`${report}.run.json`, 'utf8')).plan).toBe(plan);
    const resumed = await roster('--resume', report, '-o', 'json');
    expect(resumed.code, resumed.err).toBe(0);
    expect(JSON.parse(resumed.out)).toMatchObject({ skipped: 3, created: 0 });
    // The secret came from the file again: Ann is activated.
    expect((await client.getUser('E-1')).status).toBe('activated');
  });

  it('refuse whole when a planned user changed since, naming the row; --partial applies the rest', async () => {
    const plan = join(dir, 'plan.json');
    expect((await roster(file, '--dry-run', '--save-plan', plan)).code).toBe(0);
    await client.updateUser(bob, { profile: { firstName: 'Rob' } });
    await client.createUser({ externalId: 'E-3', email: 'cem@example.com', sendMail: false });

    const refused = await roster('--plan', plan);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('2 rows of the plan no longer hold, so nothing was applied');
    expect(refused.err).toContain(
      'line 3 (E-2): planned update firstName: Robert → Bob, now update firstName: Rob → Bob',
    );
    expect(refused.err).toMatch(/line 4 \(E-3\): planned create .*, now update firstName/);
    expect(await names()).toEqual(['E-2 Rob', 'E-3 null']);

    const partial = await roster('--plan', plan, '--partial', '-o', 'json');
    expect(partial.code).toBe(5);
    expect(JSON.parse(partial.out)).toMatchObject({ created: 1, updated: 0, failed: 2 });
    expect(await names()).toEqual(['E-1 Ann', 'E-2 Rob', 'E-3 null']);
  });

  it('refuse another input, another option, or a dry run of a plan (exit 2)', async () => {
    const plan = join(dir, 'plan.json');
    expect((await roster(file, '--dry-run', '--no-send-mail', '--save-plan', plan)).code).toBe(0);
    const option = await roster('--plan', plan, '--send-mail');
    expect([option.code, option.err]).toEqual([
      2,
      expect.stringContaining(`--send-mail: the plan ${plan} was made with --no-send-mail`),
    ]);
    expect((await roster('--plan', plan, '--dry-run')).code).toBe(2);
    expect((await roster(file, '--save-plan', plan)).code).toBe(2);
    appendFileSync(file, 'E-4,dan@example.com,Dan,\n');
    const changed = await roster('--plan', plan);
    expect(changed.code).toBe(2);
    expect(changed.err).toMatch(/people\.csv is not the input of the plan .*: its size was/);
    expect(await names()).toEqual(['E-2 Robert']);
  });
});
