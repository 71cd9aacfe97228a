/**
 * How the client picks media types: the catalog, the vendor's table, one step down after a
 * 406/415, and what it remembers. Real HTTP servers on loopback answer as services do; the
 * Roster and platform ones for real are in test/e2e/platform.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import type { Remembered } from '../../src/client/media-types.js';
import { typesFromCatalog } from '../../src/client/media-types.js';
import { sendJson, startServer } from '../helpers/fake-server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

const type = (vendor: string, entity: string, version: string) =>
  `application/vnd.${vendor}.accessors.${entity}.${version}+json`;

/** An in-memory memory: what a run would leave in the config dir. */
function memory(initial: Record<string, Remembered> = {}) {
  const kept = { ...initial };
  return {
    kept,
    load: (url: string) => kept[url],
    save: (url: string, value: Remembered) => {
      kept[url] = value;
    },
  };
}

const PAGE = { total: 0, limit: 1, offset: 0, data: [] };
const USER = { id: '65f000000000000000000001', status: 'pending' };

describe('media types per endpoint', () => {
  it('a 406 that names another vendor word: one step over to its type, remembered', async () => {
    const accepted = type('acme', 'users', 'v2');
    const server = await startServer((req, res) => {
      if (req.url === '/api') return sendJson(res, 404, { message: 'no' });
      if (req.headers.accept === accepted) return sendJson(res, 200, PAGE);
      sendJson(res, 406, {
        identifier: 40600,
        statusCode: 406,
        type: 'NotAcceptableException',
        message: `not acceptable; supported: application/json, ${accepted}`,
      });
    });
    const mem = memory();
    const client = createApiClient({ baseUrl: server.baseUrl, token: 't', memory: mem });
    cleanup.push(server.close, client.close);
    await client.listUsers({ limit: 1 });
    expect(server.seen.map((s) => `${s.url} ${s.headers.accept}`)).toEqual([
      `/api/users?limit=1 ${type('service', 'users', 'v2')}`,
      '/api application/json',
      `/api/users?limit=1 ${accepted}`,
    ]);
    expect(mem.kept[server.baseUrl]).toMatchObject({
      vendor: 'acme',
      catalog: false,
      types: { 'GET /users accept': accepted },
    });
    // The next client of this base URL asks right away.
    const again = createApiClient({ baseUrl: server.baseUrl, token: 't', memory: mem });
    cleanup.push(again.close);
    await again.listUsers({ limit: 1 });
    expect(server.seen.at(-1)!.headers.accept).toBe(accepted);
    expect(server.seen).toHaveLength(4);
  });

  it('a 406 naming nothing: the next known vendor word, once; then the error', async () => {
    const server = await startServer((_req, res) =>
      sendJson(res, 406, { identifier: 40600, statusCode: 406, message: 'Not Acceptable' }),
    );
    const client = createApiClient({ baseUrl: server.baseUrl, token: 't', memory: memory() });
    cleanup.push(server.close, client.close);
    const err = await client.listUsers().catch((e) => e);
    expect(err.status).toBe(406);
    expect(server.seen.map((s) => s.headers.accept)).toEqual([
      type('service', 'users', 'v2'),
      'application/json',
      type('staffbase', 'users', 'v2'),
    ]);
  });

  it("writes: the catalog first; a type that requires fields gets the profile's defaults", async () => {
    const invite = type('acme', 'user-invite', 'v2');
    const catalog = {
      vendor: 'acme',
      versions: [
        {
          endpoint: '/users',
          method: 'POST',
          header: 'Accept',
          mediaType: type('acme', 'user', 'v3'),
        },
        { endpoint: '/users', method: 'POST', header: 'Content-Type', mediaType: invite },
      ],
    };
    const server = await startServer((req, res) => {
      if (req.url === '/api') return sendJson(res, 200, catalog);
      sendJson(res, 201, USER);
    });
    const client = createApiClient({
      baseUrl: server.baseUrl,
      token: 't',
      memory: memory(),
      userDefaults: { role: 'reader', locale: 'de_DE' },
    });
    cleanup.push(server.close, client.close);
    expect(await client.createRequires()).toEqual(['role', 'config.locale']);
    await client.createUser({ email: 'a@example.com', role: 'editor' });
    const post = server.seen.find((s) => s.method === 'POST')!;
    expect(post.headers['content-type']).toBe(invite);
    expect(JSON.parse(post.body)).toEqual({
      email: 'a@example.com',
      role: 'editor',
      config: { locale: 'de_DE' },
    });
    expect(server.seen.filter((s) => s.url === '/api')).toHaveLength(1);
  });

  it('a 415 steps down to the next registered type; without the required fields: RequiredFieldsError, nothing sent', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/api') return sendJson(res, 404, {});
      if (req.headers['content-type'] === type('service', 'user-invite', 'v2')) {
        return sendJson(res, 201, USER);
      }
      sendJson(res, 415, { identifier: 41500, statusCode: 415, message: 'Unsupported' });
    });
    const client = createApiClient({ baseUrl: server.baseUrl, token: 't', memory: memory() });
    cleanup.push(server.close, client.close);
    const err = await client.createUser({ email: 'a@example.com' }).catch((e) => e);
    expect(err.name).toBe('RequiredFieldsError');
    expect(err.fields).toEqual(['role', 'config.locale']);
    expect(server.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
    await client.createUser({
      email: 'a@example.com',
      role: 'reader',
      config: { locale: 'en_US' },
    });
    const last = server.seen.at(-1)!;
    expect(last.headers['content-type']).toBe(type('service', 'user-invite', 'v2'));
    expect(server.seen.filter((s) => s.method === 'POST')).toHaveLength(2);
  });

  it('a hostile or odd catalog is no catalog, and never a crash', () => {
    for (const data of [
      null,
      'text',
      [],
      { vendor: 1, versions: [] },
      { vendor: 'x', versions: 'all' },
      { vendor: 'x\r\nSet-Cookie: a=b', versions: [] },
    ]) {
      expect(typesFromCatalog(data)).toBeUndefined();
    }
    const odd = typesFromCatalog({
      vendor: 'x',
      versions: [null, 7, { header: { toString: null } }, { mediaType: 5 }, {}],
    });
    expect(odd).toEqual({ vendor: 'x', types: {} });
  });
});

/**
 * The platform's 406 and 415 messages echo the media type that was asked for: a vendor word in
 * an echo is the client's own, not the service's (#24 item 5).
 */
describe('a 406 that echoes the requested type', () => {
  /** Accepts `vendor`'s users.v2 only; every other Accept gets a 406 that repeats it. */
  const echoing = (vendor: string, catalog?: unknown) =>
    startServer((req, res) => {
      if (req.url === '/api') return sendJson(res, catalog ? 200 : 404, catalog ?? {});
      if (req.headers.accept === type(vendor, 'users', 'v2')) return sendJson(res, 200, PAGE);
      sendJson(res, 406, {
        identifier: 40600,
        statusCode: 406,
        type: 'NotAcceptableException',
        message: `Media type ${req.headers.accept} is not acceptable`,
      });
    });

  it('is not the service naming its vendor: the next known vendor word is tried', async () => {
    const server = await echoing('staffbase');
    const mem = memory();
    const client = createApiClient({ baseUrl: server.baseUrl, token: 't', memory: mem });
    cleanup.push(server.close, client.close);
    await client.listUsers({ limit: 1 });
    expect(server.seen.map((s) => s.headers.accept)).toEqual([
      type('service', 'users', 'v2'),
      'application/json',
      type('staffbase', 'users', 'v2'),
    ]);
    expect(client.http.vendor).toBe('staffbase');
    expect(mem.kept[server.baseUrl]).toMatchObject({ vendor: 'staffbase' });
  });

  it('every known vendor word is tried before giving up, whichever came first', async () => {
    // Remembered from another deployment at this URL: staffbase, now a Roster (service) answers.
    const server = await echoing('service');
    const mem = memory();
    const client = createApiClient({
      baseUrl: server.baseUrl,
      token: 't',
      memory: { ...mem, load: () => ({ vendor: 'staffbase', catalog: false }) },
    });
    cleanup.push(server.close, client.close);
    await client.listUsers({ limit: 1 });
    expect(server.seen.map((s) => s.headers.accept)).toEqual([
      type('staffbase', 'users', 'v2'),
      type('service', 'users', 'v2'),
    ]);
    expect(client.http.vendor).toBe('service');
  });

  it('none of them offered: the 406 after each known word was tried once', async () => {
    const server = await echoing('nobody');
    const client = createApiClient({ baseUrl: server.baseUrl, token: 't', memory: memory() });
    cleanup.push(server.close, client.close);
    const err = await client.listUsers({ limit: 1 }).catch((e) => e);
    expect(err.status).toBe(406);
    expect(server.seen.map((s) => s.headers.accept)).toEqual([
      type('service', 'users', 'v2'),
      'application/json',
      type('staffbase', 'users', 'v2'),
    ]);
  });

  it('a catalog naming a vendor word Roster does not know: that word', async () => {
    const acme = type('acme', 'users', 'v2');
    const server = await echoing('acme', {
      vendor: 'acme',
      versions: [{ endpoint: '/users', method: 'GET', header: 'Accept', mediaType: acme }],
    });
    const client = createApiClient({ baseUrl: server.baseUrl, token: 't', memory: memory() });
    cleanup.push(server.close, client.close);
    await client.listUsers({ limit: 1 });
    expect(server.seen.map((s) => s.headers.accept)).toEqual([
      type('service', 'users', 'v2'),
      'application/json',
      acme,
    ]);
    expect(client.http.vendor).toBe('acme');
  });
});
