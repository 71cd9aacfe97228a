/** `roster check`, the CI gate, against a real server on a real port: in-process, and spawned once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';

let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed();
});
afterAll(async () => {
  await srv?.close();
});

describe('roster check', () => {
  it('passes: exit 0, one line per step', async () => {
    const r = await srv.run(['check']);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^roster check of http:\/\/127\.0\.0\.1:\d+\/api \(vendor service\)\n/,
    );
    expect(r.stdout).toContain('✓ authenticate: GET /users?limit=1');
    expect(r.stdout).toContain('✓ GET /users (an unknown version) answers 406');
    expect(r.stdout).not.toContain('✗');
  });

  it('--write --json: every version of every user endpoint, throwaways removed', async () => {
    const r = await srv.run(['check', '--write', '--json']);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      ok: true,
      write: true,
      vendor: 'service',
      baseUrl: srv.baseUrl,
    });
    const passed = report.steps.filter((s: any) => s.result === 'pass').map((s: any) => s.name);
    expect(passed).toEqual(
      expect.arrayContaining([
        'POST /users (application/vnd.service.accessors.user.v3+json)',
        'PUT /users/{id} (application/json)',
        'GET /users/{id} (application/vnd.service.accessors.user.v2+json)',
      ]),
    );
    // One throwaway per request type: flat JSON, user.v2, user.v3, user-invite.v2.
    expect(passed.filter((n: string) => n.startsWith('DELETE /users/'))).toHaveLength(4);
    const mediaSteps = report.steps.filter((x: any) => x.name.includes('/media'));
    expect(mediaSteps.length).toBeGreaterThan(0);
    for (const s of mediaSteps) expect(s.result, s.name).toBe('pass');
    const left = await srv.run([
      'users',
      'list',
      '--status',
      'activated,pending,deactivated',
      '--query',
      'roster',
    ]);
    expect(JSON.parse(left.stdout)).toEqual([]);
  });

  it('a revoked token: exit 3', async () => {
    const { id, token } = await srv.newToken();
    await srv.run(['tokens', 'revoke', id]);
    const r = await srv.run(['check', '-o', 'csv'], { env: { ROSTER_TOKEN: token } });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/^step,result,detail,ms\n/);
    expect(r.stdout).toMatch(/authenticate: GET \/users\?limit=1,fail,"?401 NotLoggedInException/);
    expect(r.stderr).toContain('check failed');
    // Steps that needed the token are skipped because of it, not for reasons of their own.
    const json = await srv.run(['check', '--json'], { env: { ROSTER_TOKEN: token } });
    const steps = JSON.parse(json.stdout).steps as {
      name: string;
      result: string;
      detail: string;
    }[];
    const byId = steps.filter((x) => x.name.startsWith('GET /users/{id}'));
    expect(byId.length).toBeGreaterThan(0);
    for (const x of byId) {
      expect(x).toMatchObject({ result: 'skip', detail: 'skipped: the token was rejected' });
    }
  });

  it('counts say what they count: every live user, not only activated ones', async () => {
    await srv.run(['users', 'invite', '--email', 'counted@example.com', '--no-send-mail']);
    const total = JSON.parse(
      (await srv.run(['users', 'list', '--status', 'all', '--all'])).stdout,
    ).length;
    const r = await srv.run(['check', '--json']);
    const auth = JSON.parse(r.stdout).steps.find((x: any) => x.name.startsWith('authenticate'));
    expect(auth.detail).toBe(
      `token accepted; ${total} live users on the branch (activated, pending, deactivated)`,
    );
  });
});
