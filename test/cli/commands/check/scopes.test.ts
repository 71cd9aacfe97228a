/**
 * `roster check` with a token that works but lacks a permission (#24 item 6): "not permitted",
 * not a failure, unless --expect-scopes names it. Against the real serve app in this process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';

let srv: CliServed;
let usersOnly: string;
beforeAll(async () => {
  srv = await startCliServed();
  usersOnly = (await srv.newToken('users:read')).token;
});
afterAll(async () => {
  await srv?.close();
});

it('a step the token may not run is "not permitted (needs media:read)", and the check passes', async () => {
  const r = await srv.run(['check'], { env: { ROSTER_TOKEN: usersOnly } });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/GET \/media \(application\/json\): not permitted \(needs media:read\)/);
  expect(r.stdout).not.toContain('✗');
  const json = await srv.run(['check', '--json'], { env: { ROSTER_TOKEN: usersOnly } });
  const media = JSON.parse(json.stdout).steps.find((s: any) => s.name.startsWith('GET /media'));
  expect(media).toMatchObject({ result: 'not permitted', detail: 'needs media:read' });
});

it('a token for media only: the users steps are "not permitted" (a 403), the media steps run', async () => {
  const mediaOnly = (await srv.newToken('media:read')).token;
  const json = await srv.run(['check', '--json'], { env: { ROSTER_TOKEN: mediaOnly } });
  expect(json.exitCode, json.stdout).toBe(0);
  const steps = JSON.parse(json.stdout).steps as { name: string; result: string; detail: string }[];
  expect(steps.find((s) => s.name.startsWith('authenticate'))).toMatchObject({
    result: 'not permitted',
    detail: 'needs users:read',
  });
  expect(steps.find((s) => s.name.startsWith('GET /media'))).toMatchObject({ result: 'pass' });
});

it('--expect-scopes makes a missing one fail: exit 3, naming it', async () => {
  const r = await srv.run(['check', '--expect-scopes', 'users:read,media:read'], {
    env: { ROSTER_TOKEN: usersOnly },
  });
  expect(r.exitCode).toBe(3);
  expect(r.stdout).toContain('✗ token scopes: GET /branch');
  expect(r.stdout).toContain('the token lacks media:read (it has users:read)');
  expect(r.stdout).toMatch(/✗ GET \/media .*not permitted \(needs media:read\)/);
  // A token with them passes.
  const ok = await srv.run(['check', '--expect-scopes', 'users:read,media:read']);
  expect(ok.exitCode, ok.stdout).toBe(0);
  expect(ok.stdout).toContain('✓ token scopes: GET /branch');
});

it('--expect-scopes with an unknown scope is a usage error', async () => {
  const r = await srv.run(['check', '--expect-scopes', 'users:read,media:rad']);
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toContain('unknown scope media:rad');
});

it('--write with a read-only token: the writes are "not permitted" (⊘), exit 0, as the README says', async () => {
  const readOnly = (await srv.newToken('users:read,media:read')).token;
  const r = await srv.run(['check', '--write'], { env: { ROSTER_TOKEN: readOnly } });
  expect(r.exitCode, r.stdout).toBe(0);
  expect(r.stdout).toMatch(/⊘ .*not permitted \(needs users:write\)/);
  expect(r.stdout).not.toContain('✗');
  const json = await srv.run(['check', '--write', '--json'], { env: { ROSTER_TOKEN: readOnly } });
  expect(json.exitCode, json.stdout).toBe(0);
  const steps = JSON.parse(json.stdout).steps as { result: string }[];
  expect(steps.some((s) => s.result === 'not permitted')).toBe(true);
  expect(steps.filter((s) => s.result === 'fail')).toEqual([]);
  // A job that needs the writes says so: then the missing scope fails.
  const demanded = await srv.run(['check', '--write', '--expect-scopes', 'users:write'], {
    env: { ROSTER_TOKEN: readOnly },
  });
  expect(demanded.exitCode).toBe(3);
  expect(demanded.stdout).toContain('the token lacks users:write');
});
