/** X-Request-Id: on every answer and in the access log; a balancer's is kept when it is sane. */
import { expect, test } from 'vitest';
import { serverForFile } from '../../helpers/server.js';

const s = await serverForFile({ accessLog: true });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('every answer names its request, errors included, and the access log says which', async () => {
  const ok = await s.req('GET', '/api/users');
  const missing = await s.req('GET', '/api/users/nobody');
  const denied = await s.req('GET', '/api/users', { token: null });
  for (const r of [ok, missing, denied]) expect(r.headers['x-request-id']).toMatch(UUID);
  expect(new Set([ok, missing, denied].map((r) => r.headers['x-request-id'])).size).toBe(3);
  expect(missing.status).toBe(404);
  expect(
    s.logs.some((l) => l.endsWith(` ${missing.headers['x-request-id']}`) && l.includes(' 404 ')),
  ).toBe(true);
});

test("a balancer's id is kept; one that is long or odd is replaced", async () => {
  const kept = await s.req('GET', '/healthz', { headers: { 'x-request-id': 'lb-7f3a:42.x_y' } });
  expect(kept.headers['x-request-id']).toBe('lb-7f3a:42.x_y');
  for (const hostile of ['a'.repeat(200), '<script>alert(1)</script>', 'id with spaces']) {
    const r = await s.req('GET', '/healthz', { headers: { 'x-request-id': hostile } });
    expect(r.headers['x-request-id']).toMatch(UUID);
    expect(s.logs.join('\n')).not.toContain(hostile);
  }
});
