/** `roster auth status` / `roster whoami` against a real serve, and a service without /api/branch. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { roster, type Served, serve } from '../helpers/e2e.js';
import { sendJson, startServer } from '../helpers/fake-server.js';

let srv: Served;
beforeAll(async () => {
  srv = await serve();
});
afterAll(() => srv.close());

test('the profile, base URL, branch and scopes, and that the token works', async () => {
  const r = await srv.run(['auth', 'status', '-o', 'table']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toContain('profile      local');
  expect(r.stdout).toContain(`base URL     ${srv.baseUrl}`);
  expect(r.stdout).toMatch(/branch\s+main \(id \d+\)/);
  expect(r.stdout).toContain('scopes       users:read, users:write, media:read, media:write');
  expect(r.stdout).toContain('token works  yes');
  expect(r.stdout).not.toContain(srv.adminToken);
  const json = JSON.parse((await srv.run(['whoami'])).stdout);
  expect(json).toMatchObject({ profile: 'local', branch: { name: 'main' }, tokenWorks: true });
});

test('a revoked token: token works no, exit 3', async () => {
  const { id, token } = await srv.newToken('users:read');
  await srv.run(['tokens', 'revoke', id]);
  const r = await srv.run(['whoami', '-o', 'table'], { env: { ROSTER_TOKEN: token } });
  expect(r.exitCode).toBe(3);
  expect(r.stdout).toContain('token works  no');
});

test('a service without GET /api/branch: says so, and still checks the token', async () => {
  const s = await startServer((req, res) =>
    req.url?.startsWith('/api/users')
      ? sendJson(res, 200, { total: 0, limit: 1, offset: 0, data: [] })
      : sendJson(res, 404, {
          identifier: 40408,
          statusCode: 404,
          message: 'no',
          type: 'NotFoundException',
        }),
  );
  try {
    const r = await roster(['auth', 'status', '-o', 'table'], {
      env: { ROSTER_BASE_URL: `${s.baseUrl}`, ROSTER_TOKEN: 'dA==' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('does not offer GET /api/branch');
    expect(r.stdout).toContain('token works  yes');
  } finally {
    await s.close();
  }
});
