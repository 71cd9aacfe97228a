/**
 * /api/webhooks over real HTTP on the backend the run chooses: the secret shown once and only
 * then, each change's event (secrets redacted), PATCH, rotation, DELETE, scope, bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const send = (method: string, path: string, body?: unknown, token?: string) =>
  server.req(method, `/api/webhooks${path}`, {
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(token ? { token } : {}),
  });
const add = async (body: Record<string, unknown> = {}) => {
  const res = await send('POST', '', {
    url: 'https://hooks.example.com/in',
    types: ['user.*'],
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
};
const eventsOf = async (id: string) =>
  (await server.req('GET', `/api/events?target=${id}&limit=1000`)).json.data as any[];

describe('an endpoint and its secret', () => {
  test('POST answers 201 with the secret (whsec_ + base64 of 24+ bytes) once; reads never show it', async () => {
    const created = await add({ description: 'intranet' });
    expect(created).toMatchObject({
      url: 'https://hooks.example.com/in',
      types: ['user.*'],
      description: 'intranet',
      enabled: true,
      disabledReason: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const one = await send('GET', `/${created.id}`);
    expect(one.status).toBe(200);
    const list = await send('GET', '');
    expect(list.json.data.map((w: any) => w.id)).toContain(created.id);
    for (const text of [one.text, list.text, JSON.stringify(await eventsOf(created.id))]) {
      expect(text).not.toContain(created.secret.slice(6));
      expect(text).not.toContain('"secret":"whsec');
    }
  });

  test('webhook.created, updated and deleted are in the log, the secret [redacted]', async () => {
    const { id, secret } = await add();
    const patched = await send('PATCH', `/${id}`, {
      types: ['user.created', 'medium.*'],
      enabled: false,
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ types: ['user.created', 'medium.*'], enabled: false });
    const rotated = await send('POST', `/${id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(secret);
    expect((await send('DELETE', `/${id}`)).status).toBe(204);
    expect((await send('GET', `/${id}`)).status).toBe(404);
    const log = await eventsOf(id);
    expect(log.map((e) => e.type)).toEqual([
      'webhook.created',
      'webhook.updated',
      'webhook.updated',
      'webhook.deleted',
    ]);
    expect(log[0].changes.secret).toEqual({ from: '[redacted]', to: '[redacted]' });
    expect(log[1].changes).toEqual({
      types: { from: ['user.*'], to: ['user.created', 'medium.*'] },
      enabled: { from: true, to: false },
    });
    expect(log[2].changes).toEqual({ secret: { from: '[redacted]', to: '[redacted]' } });
    expect(JSON.stringify(log)).not.toContain(rotated.json.secret.slice(6));
  });

  test('a PATCH that changes nothing writes no event', async () => {
    const { id } = await add();
    expect((await send('PATCH', `/${id}`, { description: '' })).status).toBe(200);
    expect((await eventsOf(id)).length).toBe(1);
  });
});

describe('refused', () => {
  test('unknown or empty types, unknown fields, a missing url: 400 with details naming each', async () => {
    const res = await send('POST', '', { types: ['user.made', 'nope.*'], color: 'red' });
    expect(res.status).toBe(400);
    const fields = res.json.details.map((d: any) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['url', 'types', 'color']));
    expect(res.text).toContain("'user.made' is not an event type");
    const empty = await send('POST', '', { url: 'https://x.example.com/', types: [] });
    expect(empty.status).toBe(400);
    expect(empty.json.details).toEqual([
      { field: 'types', message: expect.stringContaining('at least one') },
    ]);
    const { id } = await add();
    expect((await send('PATCH', `/${id}`, { enabled: 'yes' })).status).toBe(400);
  });

  test("control characters in a description or url: 400, on POST and PATCH (they would reach a follower's terminal)", async () => {
    const hostile = '\u001b[31mRED\u001b[0m\nline2';
    const post = await send('POST', '', {
      url: 'https://hooks.example.com/in',
      types: ['user.*'],
      description: hostile,
    });
    expect(post.status).toBe(400);
    expect(post.json.details).toEqual([
      { field: 'description', message: 'must not contain control characters' },
    ]);
    const url = await send('POST', '', {
      url: 'https://hooks.example.com/a\tb',
      types: ['user.*'],
    });
    expect(url.status).toBe(400);
    expect(url.json.details).toEqual([
      { field: 'url', message: 'must not contain control characters' },
    ]);
    // Spaces around a URL are no part of it: the one shown would not be the one delivered to.
    for (const spaced of [' https://hooks.example.com/in', 'https://hooks.example.com/in ']) {
      const res = await send('POST', '', { url: spaced, types: ['user.*'] });
      expect(res.status, spaced).toBe(400);
      expect(res.json.details).toEqual([
        { field: 'url', message: 'must not begin or end with a space' },
      ]);
    }
    const { id } = await add();
    expect((await send('PATCH', `/${id}`, { description: 'a\u0085b' })).status).toBe(400);
    expect((await send('GET', `/${id}`)).json.description).toBe('');
  });

  test('a token without webhooks:write: 403, reads too; another branch sees none of them', async () => {
    const { id } = await add();
    const reader = await server.token({ scopes: ['users:read', 'events:read'] });
    expect((await send('GET', '', undefined, reader)).status).toBe(403);
    expect((await send('GET', `/${id}`, undefined, reader)).status).toBe(403);
    const other = await server.token({ branch: 'other' });
    expect((await send('GET', `/${id}`, undefined, other)).status).toBe(404);
    expect((await send('GET', '', undefined, other)).json.data).toEqual([]);
    expect((await send('DELETE', `/${id}`, undefined, other)).status).toBe(404);
  });

  test('an unknown endpoint or delivery: 404 that says where to look', async () => {
    const res = await send('POST', '/65f000000000000000000000/test');
    expect(res.status).toBe(404);
    const { id } = await add();
    const retry = await send('POST', `/${id}/deliveries/65f000000000000000000000/retry`);
    expect(retry.status).toBe(404);
    expect(retry.text).toContain(`/api/webhooks/${id}/deliveries`);
  });
});

describe('declared (contract/endpoints/webhooks.ts): negotiated and answered as the event log is', () => {
  test('OPTIONS answers each path’s Allow from its declarations, PATCH among them', async () => {
    const { id } = await add();
    const allow = async (path: string) => {
      const res = await server.req('OPTIONS', `/api/webhooks${path}`);
      expect(res.status, path).toBe(204);
      return res.headers.allow;
    };
    expect(await allow('')).toBe('OPTIONS, POST, GET');
    expect(await allow(`/${id}`)).toBe('OPTIONS, PATCH, GET, DELETE');
    expect(await allow(`/${id}/deliveries`)).toBe('OPTIONS, GET');
    expect(await allow(`/${id}/deliveries/d1/retry`)).toBe('OPTIONS, POST');
  });

  test('plain JSON: application/json or */* is answered, another Accept 406 naming the type', async () => {
    const { id } = await add();
    const get = (accept: string) =>
      server.req('GET', `/api/webhooks/${id}`, { headers: { accept } });
    for (const accept of ['application/json', '*/*']) {
      const res = await get(accept);
      expect(res.status, accept).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
    const refused = await get('text/csv');
    expect(refused.status).toBe(406);
    expect(refused.text).toContain('application/json');
  });
});
