/**
 * The `status` list rule (contract/user.ts `parseStatusList`) as both ends apply it: the CLI's
 * `users list --status` run in-process against a real server, and the server's own GET /users
 * query. Where they differ (`all`) is the CLI's spelling, which it expands before sending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { splitList } from '../../src/contract/list.js';
import { parseStatusList } from '../../src/contract/user.js';
import { fakeIO } from '../cli/helpers.js';
import { scratch } from '../helpers/scratch.js';
import { jsonBody, startServer, type TestServer } from '../helpers/server.js';

const tmp = scratch();
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  for (const status of ['activated', 'pending', 'deactivated'] as const) {
    const body = { externalId: status, email: `${status}@example.com` };
    const secret = status === 'pending' ? {} : { secret: 'password-123' };
    expect((await server.req('POST', '/api/users', jsonBody({ ...body, ...secret }))).status).toBe(
      201,
    );
    if (status === 'deactivated') {
      await server.req('PUT', '/api/users/deactivated', jsonBody({ status: 'deactivated' }));
    }
  }
});
afterAll(async () => {
  await server?.close();
  await tmp.cleanup();
});

/** The statuses of the users the CLI listed, sorted; or its exit code and message. */
async function viaCli(value: string) {
  const fake = fakeIO();
  const code = await run(['node', 'roster', 'users', 'list', '--status', value, '-o', 'json'], {
    io: fake.io,
    env: {
      ROSTER_BASE_URL: `${server.url}/api`,
      ROSTER_TOKEN: server.adminToken,
      ROSTER_CONFIG_DIR: tmp.temp('roster-status-config-'),
    },
  });
  if (code !== 0) return { code, err: fake.err() };
  return { code, statuses: (JSON.parse(fake.out()) as { status: string }[]).map((u) => u.status) };
}

async function viaServer(value: string) {
  const r = await server.req('GET', `/api/users?status=${encodeURIComponent(value)}`);
  if (r.status !== 200) return { code: r.status, err: r.text };
  return { code: r.status, statuses: (r.json.data as { status: string }[]).map((u) => u.status) };
}

const sorted = (xs: string[] | undefined) => [...(xs ?? [])].sort();

describe('--status and ?status= follow one rule', () => {
  it.each([
    ['activated', ['activated']],
    ['pending,deactivated', ['deactivated', 'pending']],
    [' pending , activated ', ['activated', 'pending']],
    // Empty parts are dropped at both ends (the server used to answer 400 to these).
    ['activated,', ['activated']],
    [',pending,,deactivated,', ['deactivated', 'pending']],
    ['pending,pending', ['pending']],
  ])('%j → %j at both ends', async (value, expected) => {
    const cli = await viaCli(value);
    const api = await viaServer(value);
    expect(cli.code).toBe(0);
    expect(api.code).toBe(200);
    expect(sorted(cli.statuses)).toEqual(expected);
    expect(sorted(api.statuses)).toEqual(expected);
  });

  it.each([
    [''],
    [','],
    [' , '],
    ['deleted'],
    ['contact'],
    ['Activated'],
    ['activated,bogus'],
    ['all,pending'],
  ])('%j is refused at both ends (usage error / 400)', async (value) => {
    const cli = await viaCli(value);
    const api = await viaServer(value);
    expect(cli.code).toBe(2);
    expect(cli.err).toContain('expected activated, pending, deactivated (comma-separated) or all');
    expect(api.code).toBe(400);
    expect(api.err).toContain('must be one or more of activated, pending, deactivated');
  });

  it('`all` is the CLI spelling of every listable status; the service takes only the three names', async () => {
    const cli = await viaCli('all');
    expect(sorted(cli.statuses)).toEqual(['activated', 'deactivated', 'pending']);
    expect((await viaServer('all')).code).toBe(400);
    expect(parseStatusList('all', { all: true })).toEqual(['activated', 'pending', 'deactivated']);
    expect(parseStatusList(' all ', { all: true })).toEqual([
      'activated',
      'pending',
      'deactivated',
    ]);
    expect(parseStatusList('all')).toBeUndefined();
  });
});

describe('splitList', () => {
  it.each([
    ['a,b', ['a', 'b']],
    [' a , b ', ['a', 'b']],
    ['a,,b,', ['a', 'b']],
    ['b,a,b', ['b', 'a']],
    ['', []],
    [' , ', []],
  ])('%j → %j', (value, parts) => expect(splitList(value)).toEqual(parts));
});
