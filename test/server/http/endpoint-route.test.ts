/**
 * A declared endpoint on a router (server/http/endpoint-route.ts): its path, scope and
 * negotiation come from the declaration, and its OPTIONS answer lists the methods routed there.
 * The endpoints are made up, as a new one would be declared.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { request } from 'undici';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { EndpointDescriptor } from '../../../src/contract/endpoints/index.js';
import { routeEndpoint } from '../../../src/server/http/endpoint-route.js';
import { errorMiddleware } from '../../../src/server/http/error.middleware.js';
import type { AppState } from '../../../src/server/http/state.js';

const openapi = {
  operationId: 'x',
  summary: 'x',
  tag: 'Events',
  success: '200',
  body: null,
  errors: [],
} as const;
const LIST: EndpointDescriptor = {
  method: 'GET',
  path: '/users/{userId}/notes',
  scope: ['users:read', 403],
  versions: { accept: [[null, 'v1', 'production', 'json']] },
  openapi,
  client: 'listNotes',
};
const ADD: EndpointDescriptor = { ...LIST, method: 'POST', scope: ['users:write', 401] };

let server: Server;
let origin: string;

beforeAll(async () => {
  const router = new Router<AppState>();
  // What the auth middleware leaves for the routes: a token with one of the two scopes.
  router.use((ctx, next) => {
    ctx.state.scope = {
      token: { name: 'reader', scopes: ['users:read'] },
      branch: { name: 'main' },
    } as AppState['scope'];
    return next();
  });
  routeEndpoint(router, LIST, { vendor: 'service' }, (ctx) => {
    ctx.body = { notesOf: ctx.params.userId };
  });
  routeEndpoint(router, ADD, { vendor: 'service' }, (ctx) => {
    ctx.status = 201;
  });
  const app = new Koa<AppState>();
  app.use(errorMiddleware(() => {}));
  app.use(router.routes());
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

async function call(method: string, path: string, headers: Record<string, string> = {}) {
  const res = await request(`${origin}${path}`, { method: method as 'GET', headers });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

test('OPTIONS answers 204 with an Allow of the methods routed on the path', async () => {
  const res = await call('OPTIONS', '/api/users/u-1/notes');
  expect(res.status).toBe(204);
  expect(res.headers.allow).toBe('OPTIONS, POST, GET');
});

test('the declared path, scope and media type', async () => {
  const read = await call('GET', '/api/users/u-1/notes', { accept: 'application/json' });
  expect(read.status).toBe(200);
  expect(read.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(read.text)).toEqual({ notesOf: 'u-1' });
  // The declaration's answer to a token without the scope (401 here, as POST /users).
  const write = await call('POST', '/api/users/u-1/notes');
  expect(write.status).toBe(401);
  expect(write.text).toContain('lacks the users:write permission');
  const refused = await call('GET', '/api/users/u-1/notes', { accept: 'text/csv' });
  expect(refused.status).toBe(406);
});
