/**
 * #24's rough edges, in-process against a real server: the messages and the one new flag
 * (`users update --secret`) as a user meets them.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type CliServed, cliWith, startCliServed } from '../helpers/cli-run.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();
let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed();
});
afterAll(async () => {
  await srv.close();
  await dirs.cleanup();
});

const invitePending = async (email: string) => {
  const r = await srv.run(['users', 'invite', '--email', email, '--no-send-mail', '-o', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id as string;
};

test('with no config file: "run `roster login`", no profile or file that does not exist', async () => {
  const empty = dirs.temp('roster-rough-config-');
  const r = await cliWith({ ROSTER_CONFIG_DIR: empty })(['users', 'list']);
  expect(r.code).toBe(3);
  expect(r.stderr).toContain('run `roster login`');
  expect(r.stderr).not.toContain("profile 'local'");
  expect(r.stderr).not.toContain('config.json');
});

test('roster help users import shows the import help', async () => {
  const r = await srv.run(['help', 'users', 'import']);
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toContain('Usage: roster users import');
  expect(r.stdout).toContain('--dry-run');
});

test('--set department="" points at --unset', async () => {
  const id = await invitePending('rough-empty@example.com');
  const r = await srv.run(['users', 'update', id, '--set', 'department=']);
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toContain('must not be empty; to clear it: --unset profile.department');
});

test('activate of a never-activated user says it became pending, and how to finish', async () => {
  const id = await invitePending('rough-never@example.com');
  expect((await srv.run(['users', 'deactivate', id])).exitCode).toBe(0);
  const r = await srv.run(['users', 'activate', id, '-o', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)[0].status).toBe('pending');
  expect(r.stderr).toContain(
    `${id} is pending, not activated: it never signed up. It becomes activated when they accept the invitation, or at once with a one-time password: roster users update ${id} --secret`,
  );
});

test('activate counts those who never signed up as still pending, not as activated', async () => {
  const ids = [
    await invitePending('rough-count1@example.com'),
    await invitePending('rough-count2@example.com'),
  ];
  const signed = await srv.run([
    ...['users', 'invite', '--email', 'rough-count3@example.com', '--no-send-mail'],
    ...['--secret', 'long-enough-1', '-o', 'json'],
  ]);
  const all = [...ids, JSON.parse(signed.stdout).id as string];
  expect((await srv.run(['users', 'deactivate', ...all])).exitCode).toBe(0);
  const r = await srv.run(['users', 'activate', ...all, '-o', 'csv']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toContain('1 activated, 2 still pending (never signed up), 0 failed');
  expect(r.stdout).toContain(`${ids[0]},still pending (never signed up),pending,`);
  const none = await srv.run(['users', 'deactivate', ids[1]!]);
  expect(none.exitCode).toBe(0);
  const again = await srv.run(['users', 'activate', ids[1]!]);
  expect(again.stderr).toContain('0 activated, 1 still pending (never signed up), 0 failed');
});

test('users update --secret - reads the secret from stdin and activates a pending user', async () => {
  const id = await invitePending('rough-secret@example.com');
  const r = await srv.run(['users', 'update', id, '--secret', '-', '-o', 'json'], {
    input: 'correct-horse-battery\n',
  });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout).status).toBe('activated');
  const asks = await srv.run(['users', 'update', id, '--secret']);
  expect(asks.exitCode).toBe(2);
  expect(asks.stderr).toContain('use --secret -');
});
