import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import { paginate } from '../../src/client/users.js';
import { knownServer, sendJson, startServer } from '../helpers/fake-server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

/** A paged endpoint over `total` items that caps `limit` at `cap`, like GET /users. */
async function pagedServer(total: number, cap = 1000) {
  const server = await startServer((req, res) => {
    const q = new URL(req.url ?? '', 'http://x').searchParams;
    const limit = Math.min(Number(q.get('limit') ?? 100), cap);
    const offset = Number(q.get('offset') ?? 0);
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({
      id: `u${offset + i}`,
    }));
    sendJson(res, 200, { total, limit, offset, data });
  });
  const client = createApiClient({ baseUrl: server.baseUrl, token: 'tok', memory: knownServer });
  cleanup.push(server.close, client.close);
  return { server, client };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The same over a service with cursors: every page says `next` but the last (as Roster). */
async function cursorServer(total: number) {
  const server = await startServer((req, res) => {
    const q = new URL(req.url ?? '', 'http://x').searchParams;
    const limit = Number(q.get('limit') ?? 100);
    if (q.has('after') && q.has('offset')) return sendJson(res, 400, { identifier: 40000 });
    const from = q.has('after') ? Number(q.get('after')!.slice(1)) : Number(q.get('offset') ?? 0);
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - from)) }, (_, i) => ({
      id: `u${from + i}`,
    }));
    const next = from + data.length < total ? { next: `c${from + data.length}` } : {};
    sendJson(res, 200, { total, limit, offset: q.has('after') ? 0 : from, data, ...next });
  });
  const client = createApiClient({ baseUrl: server.baseUrl, token: 'tok', memory: knownServer });
  cleanup.push(server.close, client.close);
  return { server, client };
}

describe('paginate', () => {
  it('follows next cursors where the service gives them, without offset and asking nothing ahead', async () => {
    const { server, client } = await cursorServer(250);
    const users = await collect(client.iterateUsers({ query: 'ann' }, 100, 2));
    expect(users.map((u) => u.id)).toEqual(Array.from({ length: 250 }, (_, i) => `u${i}`));
    expect(server.seen.map((s) => s.url)).toEqual([
      '/api/users?query=ann&limit=100&offset=0',
      '/api/users?query=ann&limit=100&after=c100',
      '/api/users?query=ann&limit=100&after=c200',
    ]);
  });

  it('a walk that starts at an offset continues by cursor', async () => {
    const asked: { offset: number; after?: string }[] = [];
    const items = paginate(
      async ({ offset, after, limit }) => {
        asked.push({ offset, ...(after && { after }) });
        const from = after ? Number(after) : offset;
        const data = [from, from + 1].slice(0, 6 - from);
        return { total: 6, limit, offset, data, ...(from + 2 < 6 && { next: String(from + 2) }) };
      },
      { pageSize: 2, offset: 1, ahead: 3 },
    );
    expect(await collect(items)).toEqual([1, 2, 3, 4, 5]);
    expect(asked).toEqual([{ offset: 1 }, { offset: 3, after: '3' }, { offset: 5, after: '5' }]);
  });

  it('follows limit/offset until a short page', async () => {
    const { server, client } = await pagedServer(250);
    const users = await collect(client.iterateUsers({ query: 'ann' }, 100));
    expect(users.map((u) => u.id)).toEqual(Array.from({ length: 250 }, (_, i) => `u${i}`));
    expect(server.seen.map((s) => s.url)).toEqual([
      '/api/users?query=ann&limit=100&offset=0',
      '/api/users?query=ann&limit=100&offset=100',
      '/api/users?query=ann&limit=100&offset=200',
    ]);
  });

  it('stops at total without asking for an empty page', async () => {
    const { server, client } = await pagedServer(200);
    expect(await collect(client.iterateMedia(100))).toHaveLength(200);
    expect(server.seen).toHaveLength(2);
  });

  it('follows a server that caps the page size', async () => {
    const { server, client } = await pagedServer(120, 50);
    expect(await collect(client.iterateUsers({}, 100))).toHaveLength(120);
    expect(server.seen).toHaveLength(3);
  });

  it('asks for pages ahead within total, and yields the same items in order', async () => {
    const { server, client } = await pagedServer(250);
    const users = await collect(client.iterateUsers({}, 100, 2));
    expect(users.map((u) => u.id)).toEqual(Array.from({ length: 250 }, (_, i) => `u${i}`));
    // Nothing past the end: page 3 of 3 is the last one asked for.
    expect(server.seen.map((s) => s.url).sort()).toEqual([
      '/api/users?limit=100&offset=0',
      '/api/users?limit=100&offset=100',
      '/api/users?limit=100&offset=200',
    ]);
  });

  it('has the next pages on their way while a page is read', async () => {
    const asked: number[] = [];
    const items = paginate(
      async ({ offset, limit }) => {
        asked.push(offset);
        return { total: 10, limit, offset, data: [offset, offset + 1].slice(0, 10 - offset) };
      },
      { pageSize: 2, ahead: 2 },
    );
    expect((await items.next()).value).toBe(0);
    expect(asked).toEqual([0, 2, 4]);
    expect(await collect(items)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(asked).toEqual([0, 2, 4, 6, 8]);
  });

  it('asking ahead, follows a server that caps the page size', async () => {
    const { server, client } = await pagedServer(120, 50);
    const users = await collect(client.iterateUsers({}, 100, 3));
    expect(users.map((u) => u.id)).toEqual(Array.from({ length: 120 }, (_, i) => `u${i}`));
    expect(server.seen.map((s) => s.url)).toContain('/api/users?limit=100&offset=100');
    expect(server.seen.every((s) => !s.url.endsWith('offset=150'))).toBe(true);
  });

  it('asking ahead, re-asks a page whose offset moved', async () => {
    const asked: number[] = [];
    // The page at 2 answers 3 items for limit 2: the page asked ahead at 4 is dropped for 5.
    const items = paginate(
      async ({ offset, limit }) => {
        asked.push(offset);
        const data = offset === 2 ? [2, 3, 4] : [offset, offset + 1].slice(0, 7 - offset);
        return { total: 7, limit: offset === 2 ? 3 : limit, offset, data };
      },
      { pageSize: 2, ahead: 2 },
    );
    expect(await collect(items)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(asked).toEqual([0, 2, 4, 6, 5]);
  });

  it('asking ahead, a failed page fails the iteration when it is reached', async () => {
    const items = paginate(
      async ({ offset, limit }) => {
        if (offset === 4) throw new Error('page 3 failed');
        return { total: 10, limit, offset, data: [offset, offset + 1] };
      },
      { pageSize: 2, ahead: 3 },
    );
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const i of items) seen.push(i);
      })(),
    ).rejects.toThrow('page 3 failed');
    expect(seen).toEqual([0, 1, 2, 3]);
  });

  it('works over any page function', async () => {
    const pages = collect(
      paginate(
        async ({ offset }) => ({
          total: 3,
          limit: 2,
          offset,
          data: [offset, offset + 1].slice(0, 3 - offset),
        }),
        {
          pageSize: 2,
        },
      ),
    );
    expect(await pages).toEqual([0, 1, 2]);
  });

  it('a page asked ahead is on the wire while the page before is used, not after', async () => {
    // The service on a thread of its own, so it takes the request while this thread is busy
    // with the first page's items, as a CLI is (an export: ~15 µs a user, no I/O between them).
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const service = new Worker(PAGED_ON_A_THREAD, {
      eval: true,
      workerData: { flag: flag.buffer, total: 3000 },
    });
    const [port] = (await once(service, 'message')) as [number];
    cleanup.push(async () => {
      service.postMessage('stop');
      await once(service, 'exit');
    });
    const client = createApiClient({
      baseUrl: `http://127.0.0.1:${port}/api`,
      token: 'tok',
      memory: knownServer,
    });
    cleanup.push(client.close);
    let n = 0;
    let askedWhileBusy = false;
    for await (const _ of client.iterateUsers({}, 1000, 1)) {
      if (++n > 1000) continue;
      // Synchronous use of the first page, up to 2 s in all: the page after it reaches the
      // service meanwhile only if it was sent before the items were handed out.
      const until = Date.now() + 2;
      while (!askedWhileBusy && Date.now() < until) askedWhileBusy = Atomics.load(flag, 0) === 1;
    }
    expect(n).toBe(3000);
    expect(askedWhileBusy).toBe(true);
  });
});

/** A cursor-paged GET /users on a worker thread: it sets the flag when a page after a cursor is asked. */
const PAGED_ON_A_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { createServer } = require('node:http');
const flag = new Int32Array(workerData.flag);
const server = createServer((req, res) => {
  const q = new URL(req.url, 'http://x').searchParams;
  if (q.has('after')) Atomics.store(flag, 0, 1);
  const limit = Number(q.get('limit'));
  const from = q.has('after') ? Number(q.get('after').slice(1)) : 0;
  const data = Array.from({ length: Math.max(0, Math.min(limit, workerData.total - from)) }, (_, i) => ({ id: 'u' + (from + i) }));
  const next = from + data.length < workerData.total ? { next: 'c' + (from + data.length) } : {};
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ total: workerData.total, limit, offset: 0, data, ...next }));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

describe('user endpoints', () => {
  it('creates a user and returns it with its Location', async () => {
    const server = await startServer((_req, res) =>
      sendJson(res, 201, { id: 'abc' }, { location: 'http://127.0.0.1/api/users/abc' }),
    );
    const client = createApiClient({ baseUrl: server.baseUrl, token: 'tok', memory: knownServer });
    cleanup.push(server.close, client.close);
    const created = await client.createUser({ email: 'ann@example.com', sendMail: false });
    expect(created).toEqual({ user: { id: 'abc' }, location: 'http://127.0.0.1/api/users/abc' });
    expect(server.seen[0]?.headers['content-type']).toBe(
      'application/vnd.service.accessors.user.v3+json',
    );
  });

  it('reads the user back when 201 has no body', async () => {
    const server = await startServer((req, res) => {
      if (req.method === 'POST') {
        res.writeHead(201, { location: 'http://127.0.0.1/api/users/abc' }).end();
      } else sendJson(res, 200, { id: 'abc' });
    });
    const client = createApiClient({ baseUrl: server.baseUrl, token: 'tok', memory: knownServer });
    cleanup.push(server.close, client.close);
    await expect(client.createUser({ userName: 'ann' })).resolves.toMatchObject({
      user: { id: 'abc' },
    });
    expect(server.seen[1]?.url).toBe('/api/users/abc');
  });

  it('deletes a user (202, no body)', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(202).end();
    });
    const client = createApiClient({ baseUrl: server.baseUrl, token: 'tok', memory: knownServer });
    cleanup.push(server.close, client.close);
    await expect(client.deleteUser('ext/1')).resolves.toBeUndefined();
    expect(server.seen[0]).toMatchObject({ method: 'DELETE', url: '/api/users/ext%2F1' });
    expect(server.seen[0]?.headers.accept).toBe('application/json');
  });
});
