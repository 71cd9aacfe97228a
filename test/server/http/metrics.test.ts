/** GET /metrics: Prometheus text behind its own token, off without one; routes, not paths. */
import { expect, test } from 'vitest';
import { BACKEND } from '../../helpers/database.js';
import { serverForFile } from '../../helpers/server.js';
import { upload } from '../media/media-helpers.js';

const TOKEN = 'metrics-secret-of-the-test';
const s = await serverForFile({ metricsToken: TOKEN });
const off = await serverForFile();

const scrape = (token: string | null, server = s) =>
  server.req('GET', '/metrics', {
    token: null,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });

test('without a metrics token there is no /metrics', async () => {
  expect((await scrape(TOKEN, off)).status).toBe(404);
});

test('only the metrics token reads it; an API token does not', async () => {
  for (const r of [await scrape(null), await scrape('wrong'), await s.req('GET', '/metrics')]) {
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ identifier: 40102 });
    expect(r.headers['www-authenticate']).toBe('Bearer realm="metrics"');
  }
});

test('requests are counted by route pattern and status, with latency, uploads and previews', async () => {
  await s.req('GET', '/api/users/someone-1');
  await s.req('GET', '/api/users/someone-2');
  await s.req('GET', `/api/${'x'.repeat(50)}`);
  // Refused by a middleware before the route's own (no token: 401): still the route's pattern.
  await s.req('GET', '/api/users/someone-3', { token: null });
  expect((await upload(s, Buffer.from('hello'), 'hello.txt')).status).toBe(200);
  const r = await scrape(TOKEN);
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(r.text).toMatch(
    /roster_http_requests_total\{route="\/api\/users\/:userId",method="GET",status="404"\} 2/,
  );
  expect(r.text).toMatch(
    /roster_http_requests_total\{route="unmatched",method="GET",status="404"\} 1/,
  );
  expect(r.text).not.toContain('someone-1');
  expect(r.text).toMatch(
    /roster_http_requests_total\{route="\/api\/users\/:userId",method="GET",status="401"\} 1/,
  );
  expect(r.text).not.toMatch(/route="[^"/u]/);
  expect(r.text).toMatch(
    /roster_http_request_duration_seconds_bucket\{le="0.1",route="\/api\/media"/,
  );
  expect(r.text).toMatch(/^roster_uploads_in_flight 0$/m);
  expect(r.text).toMatch(/^roster_previews_pending 0$/m);
  expect(r.text).toContain('roster_process_resident_memory_bytes');
  expect(r.text).not.toContain(TOKEN);
  // The pool's connections, where there is a pool.
  if (BACKEND === 'postgres')
    expect(r.text).toMatch(/roster_db_pool_connections\{state="total"\} [1-9]/);
  else expect(r.text).not.toMatch(/^roster_db_pool_connections\{/m);
});
