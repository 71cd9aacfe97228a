/**
 * #44's rough edges, in-process against a real server: the messages, flags and counts a new
 * admin met in a day of real use.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';
import { scratch } from '../helpers/scratch.js';
import { V3 } from '../helpers/server.js';

const dirs = scratch();
let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed();
});
afterAll(async () => {
  await srv.close();
  await dirs.cleanup();
});

const invite = async (email: string, ...more: string[]) => {
  const r = await srv.run([
    'users',
    'invite',
    '--email',
    email,
    '--no-send-mail',
    ...more,
    '-o',
    'json',
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id as string;
};

test('a body without email or userName: "email or userName is required", the field not said twice', async () => {
  const r = await srv.req('POST', '/api/users', {
    headers: { 'content-type': V3, accept: V3 },
    body: JSON.stringify({ profile: { firstName: 'Nobody' } }),
  });
  expect(r.status).toBe(400);
  const message = (r.json as { message: string }).message;
  expect(message).toContain('email or userName is required');
  expect(message).not.toContain('email email');
});

test('--set with an unknown field: exit 2 and a "did you mean", in a real run and a dry run alike', async () => {
  const id = await invite('edge-set@example.com');
  for (const dry of [[], ['--dry-run']]) {
    const r = await srv.run(['users', 'update', id, '--set', 'departmnet=Sales', ...dry]);
    expect(r.exitCode, `${dry}: ${r.stderr}`).toBe(2);
    expect(r.stderr).toContain('did you mean profile.department');
  }
});

test('--fields takes field names in any case', async () => {
  await invite('edge-fields@example.com', '--first-name', 'Fay');
  const r = await srv.run(['users', 'list', '--fields', 'EMAIL,FirstName', '-o', 'csv']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toContain('edge-fields@example.com,Fay');
});

test('avatar set of a file that does not exist: "no such file", exit 2', async () => {
  const id = await invite('edge-avatar@example.com');
  const missing = join(dirs.temp('roster-edge-'), 'missing.jpg');
  const r = await srv.run(['users', 'avatar', 'set', id, missing]);
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toContain(`${missing}: no such file`);
  expect(r.stderr).not.toContain('ENOENT');
});

test('tokens revoke takes a unique token name', async () => {
  const made = await srv.run(['tokens', 'create', '--name', 'edge-ci', '--scopes', 'users:read']);
  expect(made.exitCode, made.stderr).toBe(0);
  const r = await srv.run(['tokens', 'revoke', 'edge-ci']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/revoked token \w+ \(edge-ci\)/);
  const list = await srv.run(['tokens', 'list', '-o', 'json']);
  const tokens = JSON.parse(list.stdout) as { name: string; revokedAt: string | null }[];
  expect(tokens.find((t) => t.name === 'edge-ci')?.revokedAt).toBeTruthy();
  // A name two live tokens share names neither: the ids to choose from.
  for (let i = 0; i < 2; i++) {
    await srv.run(['tokens', 'create', '--name', 'edge-twice', '--scopes', 'users:read']);
  }
  const twice = await srv.run(['tokens', 'revoke', 'edge-twice']);
  expect(twice.exitCode).toBe(2);
  expect(twice.stderr).toMatch(
    /2 live tokens are named 'edge-twice' \(\w+, \w+\); revoke one by its id/,
  );
});

test('backup counts the live users, not the removed ones', async () => {
  const { startServer } = await import('../helpers/server.js');
  const { cliAgainst, cliWith, cliEnv } = await import('../helpers/cli-run.js');
  const own = await startServer();
  const configDir = dirs.temp('roster-edge-config-');
  const cli = cliAgainst(own, own.adminToken, configDir);
  const ids: string[] = [];
  for (const email of ['edge-b1@example.com', 'edge-b2@example.com']) {
    const r = await cli(['users', 'invite', '--email', email, '--no-send-mail', '-o', 'json']);
    ids.push(JSON.parse(r.stdout).id);
  }
  expect((await cli(['users', 'remove', ids[0]!, '--yes'])).code).toBe(0);
  const to = join(dirs.temp('roster-edge-backup-'), 'b.db');
  const r = await cliWith(cliEnv({ configDir, dataDir: own.dataDir }))(['backup', '--to', to]);
  await own.close();
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain('backed up 1 user and 0 media rows');
});

test('an email is stored with its domain in lower case, the local part as typed', async () => {
  const r = await srv.run([
    'users',
    'invite',
    '--email',
    'USER403@Corp.Example.com',
    '--no-send-mail',
    '-o',
    'json',
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  const user = JSON.parse(r.stdout);
  expect(user.email.value).toBe('USER403@corp.example.com');
  // The same address in another case is the same user, and an update to it changes nothing.
  const again = await srv.run([
    'users',
    'update',
    user.id,
    '--set',
    'email=USER403@CORP.example.COM',
    '-o',
    'json',
  ]);
  expect(again.exitCode, again.stderr).toBe(0);
  expect(JSON.parse(again.stdout).email.value).toBe('USER403@corp.example.com');
});

test('tokens list at 80 columns tells an admin token from a read-only one', async () => {
  const { run } = await import('../../src/cli/main.js');
  const { fakeIO } = await import('./helpers.js');
  await srv.run(['tokens', 'create', '--name', 'edge-reader', '--scopes', 'users:read']);
  const fake = fakeIO({ tty: true });
  fake.io.columns = 80;
  const code = await run(['node', 'roster', 'tokens', 'list'], {
    io: fake.io,
    env: { NO_COLOR: '1', ...srv.env },
  });
  expect(code, fake.err()).toBe(0);
  const out = fake.out();
  expect(out.split('\n').find((l) => l.includes('edge-reader'))).toMatch(/│ users:read +│/);
  // The admin token's every scope is there, wrapped rather than cut.
  for (const scope of ['users:write', 'media:read', 'media:write']) expect(out).toContain(scope);
  for (const line of out.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
});
