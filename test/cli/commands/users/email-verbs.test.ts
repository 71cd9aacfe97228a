/**
 * Every verb that takes a user finds it by id, externalId or email, as `users show` does (one
 * lookup, users/lookup.ts): remove, deactivate, activate and update had said an existing user
 * 'does not exist' (exit 4) when given an email. In-process against a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';

let srv: CliServed;
const ids: Record<string, string> = {};
beforeAll(async () => {
  srv = await startCliServed();
  for (const [key, email] of Object.entries({
    zed: 'Zed@Example.com',
    // A prefix of zed's address: a free-text search finds both, only one is the address.
    ed: 'ed@example.com',
    gone: 'gone@example.com',
  })) {
    const r = await srv.run([
      ...['users', 'invite', '--no-send-mail', '--email', email],
      ...['--secret', 'long-enough-1'],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    ids[key] = JSON.parse(r.stdout).id;
  }
});
afterAll(async () => {
  await srv?.close();
});

const statusOf = async (id: string) =>
  JSON.parse((await srv.run(['users', 'show', id])).stdout).status;

describe('verbs given an email', () => {
  it('deactivate and activate change that user (and not the one with a longer address)', async () => {
    const off = await srv.run(['users', 'deactivate', 'zed@example.com']);
    expect(off.exitCode, off.stderr).toBe(0);
    expect(await statusOf(ids.zed!)).toBe('deactivated');
    expect(await statusOf(ids.ed!)).toBe('activated');
    const dry = await srv.run(['users', 'activate', 'ZED@example.com', '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('deactivated');
    const on = await srv.run(['users', 'activate', 'ZED@example.com']);
    expect(on.exitCode, on.stderr).toBe(0);
    expect(await statusOf(ids.zed!)).toBe('activated');
  });

  it('update, alone, from standard input and --dry-run', async () => {
    const one = await srv.run(['users', 'update', 'zed@example.com', '--set', 'department=IT']);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ id: ids.zed, profile: { department: 'IT' } });
    const dry = await srv.run([
      ...['users', 'update', 'zed@example.com', '--set', 'department=HR', '--dry-run'],
    ]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('HR');
    const piped = await srv.run(['users', 'update', '-', '--set', 'department=Ops'], {
      input: 'zed@example.com\n',
    });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(JSON.parse((await srv.run(['users', 'show', ids.zed!])).stdout).profile).toMatchObject({
      department: 'Ops',
    });
  });

  it('remove (and its --dry-run) removes that user', async () => {
    const dry = await srv.run(['users', 'remove', 'gone@example.com', '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const r = await srv.run(['-y', 'users', 'remove', 'gone@example.com']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await srv.run(['users', 'show', ids.gone!])).exitCode).toBe(4);
    expect(await statusOf(ids.ed!)).toBe('activated');
  });

  it('an email nobody has is still not found: exit 4 naming it', async () => {
    for (const args of [
      ['users', 'deactivate', 'nobody@example.com'],
      ['users', 'update', 'nobody@example.com', '--set', 'department=IT'],
      ['-y', 'users', 'remove', 'nobody@example.com'],
    ]) {
      const r = await srv.run(args);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(4);
      expect(r.stderr).toContain('nobody@example.com');
    }
  });
});
