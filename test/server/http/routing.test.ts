import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dispatch, routeByPrefix } from '../../../src/server/http/routing.js';
import type { AppState } from '../../../src/server/http/state.js';

// Three routers shaped like serve's: an authenticated API, public paths (one of them under
// /api/), and /cdn. Each counts the requests it matched against its routes: that matching is the
// cost a request pays for every router it meets (every layer is tested, the first one too).
const seen = { api: 0, public: 0, cdn: 0 };
function counted(router: Router<AppState>, name: keyof typeof seen) {
  const first = router.stack[0]!;
  const match = first.match.bind(first);
  first.match = (path) => {
    seen[name]++;
    return match(path);
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

describe("a router's dispatch does what @koa/router's routes() does", () => {
  // One router with a middleware for every path, two routes matching the same paths, params
  // (encoded ones too), a named route and a HEAD on GET; served once by @koa/router's routes()
  // and once by dispatch(), each request's observations compared.
  function app(use: 'routes' | 'dispatch') {
    const router = new Router<AppState>();
    const log: string[] = [];
    router.use(async (ctx, next) => {
      log.push(`use ${JSON.stringify(ctx.params)}`);
      await next();
    });
    router.get('/things/:id', async (ctx, next) => {
      log.push(`first ${ctx.params.id}`);
      await next();
    });
    router.get('named', '/things/:id{/:part}', (ctx) => {
      const c = ctx as unknown as Record<string, unknown>;
      ctx.body = {
        log,
        params: ctx.params,
        captures: c.captures,
        routerPath: c.routerPath,
        routerName: c.routerName,
        matchedRoute: c._matchedRoute,
        matchedRouteName: c._matchedRouteName,
        matched: (c.matched as { path: string }[]).map((l) => l.path),
        routeMatched: c.routeMatched,
      };
    });
    router.post('/things', (ctx) => {
      ctx.status = 201;
      ctx.body = { log, params: ctx.params };
    });
    const koa = new Koa<AppState>();
    koa.use(async (_ctx, next) => {
      log.length = 0;
      await next();
    });
    koa.use(use === 'routes' ? router.routes() : dispatch(router));
    koa.use(router.allowedMethods());
    return koa;
  }
  const servers: Server[] = [];
  const origins: Record<string, string> = {};
  beforeAll(async () => {
    for (const use of ['routes', 'dispatch'] as const) {
      const s = app(use).listen(0, '127.0.0.1');
      servers.push(s);
      await new Promise((r) => s.once('listening', r));
      origins[use] = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    }
  });
  afterAll(() => {
    for (const s of servers) s.close();
  });

  test.each([
    ['GET', '/things/a1'],
    ['GET', '/things/a%20b/c%2Fd'],
    ['HEAD', '/things/x'],
    ['POST', '/things'],
    ['DELETE', '/things/x'],
    ['GET', '/nothing'],
    ['OPTIONS', '/things'],
  ])('%s %s', async (method, path) => {
    const seenBy = async (use: string) => {
      const res = await request(`${origins[use]}${path}`, { method: method as 'GET' });
      return { status: res.statusCode, allow: res.headers.allow, body: await res.body.text() };
    };
    const [theirs, ours] = [await seenBy('routes'), await seenBy('dispatch')];
    expect(ours).toEqual(theirs);
    if (method === 'GET' && path.startsWith('/things/')) expect(ours.status).toBe(200);
  });
});
