import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CheckReport, runCheck } from '../../../../src/cli/commands/check/index.js';
import type { Deps } from '../../../../src/cli/context.js';
import { scratch } from '../../../helpers/scratch.js';
import { startServer, type TestServer } from '../../../helpers/server.js';
import { fakeIO } from '../../helpers.js';

const tmp = scratch();
let server: TestServer;
let acme: TestServer;
beforeAll(async () => {
  [server, acme] = await Promise.all([startServer(), startServer({ vendor: 'acme' })]);
});
afterAll(async () => {
  await Promise.all([server?.close(), acme?.close()]);
  await tmp.cleanup();
});

const deps = (
  fake: ReturnType<typeof fakeIO>,
  token = server.adminToken,
  url = server.url,
  env = {},
): Deps => ({
  io: fake.io,
  // A fresh config dir each time: what a base URL accepted is remembered there.
  env: {
    ROSTER_BASE_URL: `${url}/api`,
    ROSTER_TOKEN: token,
    ROSTER_CONFIG_DIR: tmp.temp('roster-check-config-'),
    ...env,
  },
  cleanups: [],
});
const close = async (d: Deps) => {
  for (const fn of d.cleanups ?? []) await fn();
};

async function check(
  opts: { write?: boolean; json?: boolean; output?: string; expectScopes?: string },
  d: Deps,
) {
  try {
    return await runCheck({ ...opts, globals: { output: opts.output } }, d);
  } finally {
    await close(d);
  }
}

describe('roster check against a real service', () => {
  it('passes every read step; prints lines of text by default', async () => {
    const fake = fakeIO();
    const report = await check({}, deps(fake));
    expect(report.ok).toBe(true);
    const names = report.steps.map((s) => s.name);
    expect(names).toContain('GET /users (application/vnd.service.accessors.users.v2+json)');
    expect(names).toContain('GET /users (an unknown version) answers 406');
    expect(report.steps.filter((s) => s.result === 'fail')).toEqual([]);
    expect(fake.out()).toMatch(
      /^roster check of http:\/\/127\.0\.0\.1:\d+\/api \(vendor service\)\n✓ reach the service/,
    );
  });

  it('--write creates, reads, changes and removes throwaway users, every version', async () => {
    const fake = fakeIO();
    const report = await check({ write: true, json: true }, deps(fake));
    expect(JSON.parse(fake.out())).toEqual(JSON.parse(JSON.stringify(report)));
    const byResult = (r: string) => report.steps.filter((s) => s.result === r).map((s) => s.name);
    expect(byResult('fail')).toEqual([]);
    for (const v of [
      'application/json',
      'application/vnd.service.accessors.user.v2+json',
      'application/vnd.service.accessors.user.v3+json',
    ]) {
      expect(byResult('pass')).toContain(`POST /users (${v})`);
      expect(byResult('pass')).toContain(`PUT /users/{id} (${v})`);
      expect(byResult('pass')).toContain(`GET /users/{id} (${v})`);
    }
    // One throwaway per request type: flat JSON, user.v2, user.v3, user-invite.v2.
    expect(report.steps.filter((s) => /^DELETE \/users\//.test(s.name))).toHaveLength(4);
    // The media steps run once the service has media routes, and are skipped before.
    const mediaSteps = report.steps.filter((s) => s.name.includes('/media'));
    expect(mediaSteps.length).toBeGreaterThan(0);
    // Nothing is left behind.
    const left = await server.req('GET', '/api/users?status=activated,pending,deactivated');
    expect(left.json.data.filter((u: any) => /roster-check/.test(JSON.stringify(u)))).toEqual([]);
  });

  it('-o yaml: the report, as -o json has it', async () => {
    const fake = fakeIO();
    const report = await check({ output: 'yaml' }, deps(fake));
    const { parse } = await import('yaml');
    expect(parse(fake.out())).toEqual(JSON.parse(JSON.stringify(report)));
  });

  it('a token the service rejects: exit 3, later steps skipped', async () => {
    const fake = fakeIO();
    const err = await check({ output: 'ndjson' }, deps(fake, 'bm9wZTpub3Bl')).catch((e) => e);
    expect(err.exitCode).toBe(3);
    const steps = fake
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps[0]).toMatchObject({ name: 'reach the service: GET /api', result: 'pass' });
    expect(steps[1]).toMatchObject({ result: 'fail', auth: true });
    expect(steps.slice(2).every((s: any) => s.result === 'skip')).toBe(true);
  });

  it('a read-only token passes --write, its writes not permitted; --expect-scopes fails it, exit 3', async () => {
    const readOnly = await server.token({ scopes: ['users:read', 'media:read'] });
    const report = await check({ write: true }, deps(fakeIO(), readOnly));
    expect(report.ok).toBe(true);
    expect(report.steps.find((s) => s.name.startsWith('POST /users'))).toMatchObject({
      result: 'not permitted',
    });
    const err = await check(
      { write: true, expectScopes: 'users:write,media:write' },
      deps(fakeIO(), readOnly),
    ).catch((e) => e);
    expect(err.exitCode).toBe(3);
    expect(err.message).toMatch(/check failed: .*POST \/users/);
  });

  it('another vendor word: exit 1 naming the vendor to log in with, though the client adapts', async () => {
    const fake = fakeIO();
    const err = await check({ json: true }, deps(fake, acme.adminToken, acme.url)).catch((e) => e);
    expect(err.exitCode).toBe(1);
    const report: CheckReport = JSON.parse(fake.out());
    expect(report.ok).toBe(false);
    expect(report.steps[0]!.detail).toContain("the service uses vendor 'acme'");
    // The 406 to the first request named acme's types: the client stepped over to them.
    expect(report.vendor).toBe('acme');
    expect(report.steps.filter((s) => s.result === 'fail')).toHaveLength(1);
    // ROSTER_VENDOR fixes it.
    const ok = await check(
      {},
      deps(fakeIO(), acme.adminToken, acme.url, { ROSTER_VENDOR: 'acme' }),
    );
    expect(ok.ok).toBe(true);
  });
});
