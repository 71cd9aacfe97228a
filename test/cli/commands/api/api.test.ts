/**
 * `roster api [-X METHOD] PATH [--input FILE|-] [-H header]`: a raw call with the profile's
 * token, tenant and negotiated media types (as `gh api`), JSON out, the usual exit codes; the
 * token never leaves the profile's API. In-process against a real server on a real port.
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';

let srv: CliServed;
/** Another origin: it must never see a request (and so never the token). */
let other: Server;
let otherUrl: string;
const seen: IncomingHttpHeaders[] = [];
beforeAll(async () => {
  srv = await startCliServed();
  other = createServer((req, res) => {
    seen.push(req.headers);
    res.end('{}');
  }).listen(0, '127.0.0.1');
  await once(other, 'listening');
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await srv?.close();
  other?.close();
});

describe('roster api', () => {
  it('GET a path of the API: JSON out, exit 0', async () => {
    const r = await srv.run(['api', '/branch']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'main', scopes: expect.any(Array) });
  });

  it('POST with --input -: the body with the negotiated media type; the answer is v3', async () => {
    const body = JSON.stringify({ email: 'raw@example.com', sendMail: false });
    const r = await srv.run(['api', '-X', 'POST', 'users', '--input', '-'], { input: body });
    expect(r.exitCode, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout);
    // v3 (the negotiated type): email is {value, source}; the flat v1 answer has a string.
    expect(created.email).toMatchObject({ value: 'raw@example.com' });
    const got = await srv.run(['api', `/users/${created.id}`]);
    expect(JSON.parse(got.stdout).id).toBe(created.id);
    const list = await srv.run(['api', '/users?status=pending&limit=5']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(list.stdout))).toContain(created.id);
  });

  it('a trailing slash names the same endpoint, negotiated as without it (the users.v2 list)', async () => {
    await srv.run(['api', '-X', 'POST', '/users', '--input', '-'], {
      input: '{"email":"slash@example.com","sendMail":false}',
    });
    const r = await srv.run(['api', '/users/?status=pending&limit=1']);
    expect(r.exitCode, r.stderr).toBe(0);
    const page = JSON.parse(r.stdout);
    // users.v2 carries v3 users (email {value, source}); un-negotiated, v1 would be flat.
    expect(page.data[0].email).toMatchObject({ value: expect.any(String) });
  });

  it('--input FILE, -X PUT; then DELETE (an empty answer prints nothing)', async () => {
    const made = await srv.run(['api', '-X', 'POST', '/users', '--input', '-'], {
      input: '{"email":"put@example.com","sendMail":false}',
    });
    const id = JSON.parse(made.stdout).id;
    const file = join(srv.dataDir, 'patch.json');
    writeFileSync(file, '{"profile":{"position":"CTO"}}');
    const put = await srv.run(['api', '-X', 'PUT', `/users/${id}`, '--input', file]);
    expect(put.exitCode, put.stderr).toBe(0);
    expect(JSON.parse(put.stdout).profile.position).toBe('CTO');
    const del = await srv.run(['api', '-X', 'DELETE', `/users/${id}`]);
    expect(del.exitCode, del.stderr).toBe(0);
    expect((await srv.run(['api', `/users/${id}`])).exitCode).toBe(4);
  });

  it('-X PATCH (a webhook: /api/webhooks takes PATCH)', async () => {
    const made = await srv.run(['api', '-X', 'POST', '/webhooks', '--input', '-'], {
      input: '{"url":"https://hooks.example.com/in","types":["user.*"]}',
    });
    expect(made.exitCode, made.stderr).toBe(0);
    const { id } = JSON.parse(made.stdout);
    const patched = await srv.run(['api', '-X', 'patch', `/webhooks/${id}`, '--input', '-'], {
      input: '{"enabled":false}',
    });
    expect(patched.exitCode, patched.stderr).toBe(0);
    expect(JSON.parse(patched.stdout).enabled).toBe(false);
  });

  it('exit codes as other commands: 404 → 4, 403 → 3, 400 → 1', async () => {
    expect((await srv.run(['api', '/users/nobody'])).exitCode).toBe(4);
    const { token } = await srv.newToken('media:read');
    const denied = await srv.run(['api', '/users'], { env: { ROSTER_TOKEN: token } });
    expect(denied.exitCode).toBe(3);
    expect((await srv.run(['api', '/users?limit=abc'])).exitCode).toBe(1);
  });

  it.each([
    ['an absolute URL elsewhere', () => `${otherUrl}/api/users`],
    ['an absolute URL even to the API', () => `${srv.baseUrl}/users`],
    ['a //host path', () => `//${otherUrl.slice('http://'.length)}/x`],
    ['a scheme-relative with backslashes', () => `\\\\${otherUrl.slice('http://'.length)}/x`],
  ])('refuses %s (exit 2), sending nothing', async (_name, path) => {
    const r = await srv.run(['api', path()]);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/relative to the profile's API/);
    expect(seen).toEqual([]);
  });

  it('a header cannot replace the token; others are sent', async () => {
    const r = await srv.run(['api', '/branch', '-H', 'Authorization: Basic eDp5']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/Authorization/);
    const ok = await srv.run(['api', '/branch', '-H', 'X-Request-Id: abc']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect((await srv.run(['api', '/branch', '-H', 'no-colon'])).exitCode).toBe(2);
  });

  it('an unknown method is a usage error', async () => {
    expect((await srv.run(['api', '-X', 'BREW', '/users'])).exitCode).toBe(2);
  });
});
