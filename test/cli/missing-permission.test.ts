/**
 * A token without a permission is not a login problem (#24 item 6): against the real `serve`
 * app in this process, on a real port, with tokens made with fewer scopes.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';

let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed();
});
afterAll(async () => {
  await srv?.close();
});

it('a 401 for a token that otherwise works names the missing permission, without login advice: exit 3', async () => {
  // The interface answers a token without media:read with 401 on GET /media.
  const { token } = await srv.newToken('users:read');
  const r = await srv.run(['media', 'list'], { env: { ROSTER_TOKEN: token } });
  expect(r.exitCode).toBe(3);
  expect(r.stderr).toContain(
    'The token is valid (it has users:read) but lacks the media:read permission, which this request needs.',
  );
  expect(r.stderr).toContain('roster tokens create --scopes users:read,media:read');
  expect(r.stderr).not.toContain('roster login');
  expect(r.stderr).not.toContain('--profile');
});

it('a token the service does not know keeps the login advice', async () => {
  const r = await srv.run(['media', 'list'], { env: { ROSTER_TOKEN: 'bm9wZTpub3Bl' } });
  expect(r.exitCode).toBe(3);
  expect(r.stderr).toContain('run `roster login`');
  expect(r.stderr).not.toContain('permission');
});

it('a write without users:write (401 there too) names users:write', async () => {
  const { token } = await srv.newToken('users:read');
  const r = await srv.run(['users', 'invite', '--email', 'no-write@example.com'], {
    env: { ROSTER_TOKEN: token },
  });
  expect(r.exitCode).toBe(3);
  expect(r.stderr).toContain('but lacks the users:write permission');
  expect(r.stderr).not.toContain('roster login');
});
