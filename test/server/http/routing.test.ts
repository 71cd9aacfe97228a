import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { request } from 'undici';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { routeByPrefix } from '../../../src/server/http/routing.js';
import type { AppState } from '../../../src/server/http/state.js';

// Three routers shaped like serve's: an authenticated API, public paths (one of them under
// /api/), and /cdn. Each counts the requests it matched against its routes: that matching is the
// cost a request pays for every router it meets.
const seen = { api: 0, public: 0, cdn: 0 };
function counted(router: Router<AppState>, name: keyof typeof seen) {
  const match = router.match.bind(router);
  router.match = (path, method) => {
    seen[name]++;
    return match(path, method);
  };
  return router;
}
let server: Server;
let origin: string;

beforeAll(async () => {
  const api = new Router<AppState>();
  api.get('/api/users', (ctx) => {
    ctx.body = 'users';
  });
  api.post('/api/users', (ctx) => {
    ctx.body = 'created';
  });
  const pub = new Router<AppState>();
  pub.get('/api', (ctx) => {
    ctx.body = 'catalog';
  });
  pub.get('/api/openapi.json', (ctx) => {
    ctx.body = 'openapi';
  });
  pub.get('/healthz', (ctx) => {
    ctx.body = 'ok';
  });
  const cdn = new Router<AppState>();
  cdn.get('/cdn/:file', (ctx) => {
    ctx.body = `file ${ctx.params.file}`;
  });

  for (const [router, name] of [
    [api, 'api'],
    [pub, 'public'],
    [cdn, 'cdn'],
  ] as const)
    counted(router, name);
  const app = new Koa<AppState>();
  app.use(
    routeByPrefix({
      prefixes: [
        ['/api/', [api, pub]],
        ['/cdn/', [cdn]],
      ],
      rest: [pub],
    }),
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

async function call(method: string, path: string) {
  const before = { ...seen };
  const res = await request(`${origin}${path}`, { method: method as 'GET' });
  const body = await res.body.text();
  const met = (Object.keys(seen) as (keyof typeof seen)[]).filter((k) => seen[k] > before[k]);
  return { status: res.statusCode, body, allow: res.headers.allow, met };
}

test('a request meets only the routers its prefix names', async () => {
  expect(await call('GET', '/api/users')).toMatchObject({
    status: 200,
    body: 'users',
    met: ['api'],
  });
  expect(await call('GET', '/cdn/a.png')).toMatchObject({
    status: 200,
    body: 'file a.png',
    met: ['cdn'],
  });
  expect(await call('GET', '/healthz')).toMatchObject({ status: 200, body: 'ok', met: ['public'] });
  expect(await call('GET', '/api')).toMatchObject({
    status: 200,
    body: 'catalog',
    met: ['public'],
  });
});

test('a path under a prefix that its first router lacks goes on to the next', async () => {
  expect(await call('GET', '/api/openapi.json')).toMatchObject({
    status: 200,
    body: 'openapi',
    met: ['api', 'public'],
  });
});

test('a known path with another method is 405 naming the allowed ones; unknown paths 404', async () => {
  const wrong = await call('DELETE', '/api/users');
  expect(wrong.status).toBe(405);
  expect(String(wrong.allow).split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
  expect((await call('POST', '/healthz')).status).toBe(405);
  expect((await call('GET', '/api/nothing')).status).toBe(404);
  expect((await call('GET', '/cdn')).status).toBe(404);
});

test("OPTIONS on a route without its own handler is 204 with no body, not the router's 200", async () => {
  const res = await call('OPTIONS', '/api/users');
  expect(res.status).toBe(204);
  expect(res.body).toBe('');
  expect(String(res.allow).split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
});
