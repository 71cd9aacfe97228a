/**
 * `users show a@b`: a user by email as well as by id or externalId (GAM's `info user a@b`),
 * compared as the identity rule compares emails. In-process against a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';

let srv: CliServed;
const ids: Record<string, string> = {};
beforeAll(async () => {
  srv = await startCliServed();
  for (const [key, args] of Object.entries({
    ann: ['--email', 'Ann.Archer@Example.com', '--secret', 'long-enough-1'],
    // A prefix of ann's address: a free-text search finds both, only one is the address.
    an: ['--email', 'an@example.com'],
    pending: ['--email', 'pending@example.com'],
    idp: ['--email', 'idp@example.com', '--external-id', 'carl@idp.example'],
  })) {
    const r = await srv.run(['users', 'invite', '--no-send-mail', ...args]);
    expect(r.exitCode, r.stderr).toBe(0);
    ids[key] = JSON.parse(r.stdout).id;
  }
});
afterAll(async () => {
  await srv?.close();
});

const showId = async (arg: string) => {
  const r = await srv.run(['users', 'show', arg]);
  return { code: r.exitCode, id: r.exitCode === 0 ? JSON.parse(r.stdout).id : undefined, r };
};

describe('users show by email', () => {
  it('finds the user whose email is the argument, without regard to case', async () => {
    expect(await showId('ann.archer@example.com')).toMatchObject({ code: 0, id: ids.ann });
    expect(await showId('AN@EXAMPLE.COM')).toMatchObject({ code: 0, id: ids.an });
  });

  it('finds a pending user too', async () => {
    expect(await showId('pending@example.com')).toMatchObject({ code: 0, id: ids.pending });
  });

  it('an externalId with @ in it still finds its user', async () => {
    expect(await showId('carl@idp.example')).toMatchObject({ code: 0, id: ids.idp });
  });

  it('nobody with that email: exit 4, naming the address', async () => {
    const { code, r } = await showId('nobody@example.com');
    expect(code).toBe(4);
    expect(r.stderr).toContain('nobody@example.com');
  });

  it('emails from standard input too', async () => {
    const r = await srv.run(['users', 'show', '-'], { input: 'ann.archer@example.com\n' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0].id).toBe(ids.ann);
  });
});
