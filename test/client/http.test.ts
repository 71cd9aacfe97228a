import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, describe, expect, it } from 'vitest';
import { userMessage } from '../../src/cli/advice.js';
import { ApiError, NetworkError, ResponseFormatError, redactUrl } from '../../src/client/errors.js';
import { createHttpClient, type HttpClient, type RetryInfo } from '../../src/client/http.js';
import { deleteUser, getUser, listUsers, updateUser } from '../../src/client/users.js';
import {
  type FakeServer,
  freePort,
  knownServer,
  sendJson,
  startServer,
} from '../helpers/fake-server.js';

const TOKEN = 'dG9rZW4taWQ6c2VjcmV0LXNlY3JldA==';
const FAST = { baseDelayMs: 5, maxDelayMs: 20, maxRetries: 3, maxTotalWaitMs: 5_000 };
const page = { total: 0, limit: 100, offset: 0, data: [] };

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function serve(handler: Parameters<typeof startServer>[0]): Promise<FakeServer> {
  const server = await startServer(handler);
  cleanup.push(server.close);
  return server;
}

function client(baseUrl: string, extra: Partial<Parameters<typeof createHttpClient>[0]> = {}) {
  const http = createHttpClient({
    baseUrl,
    token: TOKEN,
    retry: FAST,
    memory: knownServer,
    ...extra,
  });
  cleanup.push(() => http.close());
  return http;
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

describe('headers', () => {
  it('sends auth, host and the newest versions', async () => {
    const server = await serve((req, res) =>
      sendJson(res, 200, req.method === 'GET' && req.url?.startsWith('/api/users?') ? page : {}),
    );
    const http = client(server.baseUrl);
    await listUsers(http, { limit: 1, status: ['activated', 'pending'] });
    await updateUser(http, 'a/b c', { profile: { position: 'CTO' } });
    const [list, put] = server.seen;
    expect(list?.url).toBe('/api/users?limit=1&status=activated%2Cpending');
    expect(list?.headers.authorization).toBe(`Basic ${TOKEN}`);
    expect(list?.headers.host).toBe(new URL(server.baseUrl).host);
    expect(list?.headers.accept).toBe('application/vnd.service.accessors.users.v2+json');
    expect(put?.url).toBe('/api/users/a%2Fb%20c');
    expect(put?.headers.accept).toBe('application/vnd.service.accessors.user.v3+json');
    expect(put?.headers['content-type']).toBe('application/vnd.service.accessors.user.v3+json');
    expect(JSON.parse(put?.body ?? '')).toEqual({ profile: { position: 'CTO' } });
  });

  it('keeps the connection alive between requests', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, {}));
    const http = client(server.baseUrl);
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) await getUser(http, id);
    // undici may open a second socket while the first finishes its answer; never one per request.
    expect(server.connections()).toBeLessThanOrEqual(2);
  });

  it('uses the configured vendor word', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, {}));
    await getUser(client(server.baseUrl, { vendor: 'acme' }), 'x');
    expect(server.seen[0]?.headers.accept).toBe('application/vnd.acme.accessors.user.v3+json');
  });

  it('traces one line per request and answer, never the token', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, page));
    const lines: string[] = [];
    await listUsers(client(server.baseUrl, { onTrace: (l) => lines.push(l) }), { limit: 1 });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(`→ GET ${server.baseUrl}/users?limit=1`);
    expect(lines[1]).toMatch(/^← 200 OK \d+ ms$/);
    // Once per run (and when it changes): which vendor's media types are in use.
    expect(lines[2]).toBe("  media types of vendor 'service'");
    expect(lines.join('\n')).not.toContain(TOKEN);
  });
});

describe('retries', () => {
  it('waits Retry-After on 429, then succeeds', async () => {
    const events: string[] = [];
    const server = await serve((_req, res, n) => {
      events.push(`request ${n}`);
      if (n === 1) sendJson(res, 429, {}, { 'retry-after': '1' });
      else sendJson(res, 200, { id: 'u1' });
    });
    const retries: RetryInfo[] = [];
    const http = client(server.baseUrl, {
      onRetry: (i) => retries.push(i),
      sleep: async (ms) => void events.push(`sleep ${ms}`),
    });
    const user = await getUser(http, 'u1');
    expect(events).toEqual(['request 1', 'sleep 1000', 'request 2']);
    expect(user).toEqual({ id: 'u1' });
    expect(server.seen).toHaveLength(2);
    expect(retries).toMatchObject([{ retry: 1, delayMs: 1_000, reason: '429 Too Many Requests' }]);
  });

  it('retries a GET on 503', async () => {
    const server = await serve((_req, res, n) =>
      n === 1 ? sendJson(res, 503, {}) : sendJson(res, 200, { id: 'u1' }),
    );
    await expect(getUser(client(server.baseUrl), 'u1')).resolves.toEqual({ id: 'u1' });
    expect(server.seen).toHaveLength(2);
  });

  it('does not retry a POST on 500', async () => {
    const server = await serve((_req, res) => sendJson(res, 500, {}));
    const err = await rejection(
      client(server.baseUrl).json({ method: 'POST', endpoint: '/users', json: { email: 'a@b.c' } }),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(500);
    expect(server.seen).toHaveLength(1);
  });

  it('retries a POST on 429', async () => {
    const server = await serve((_req, res, n) =>
      n === 1 ? sendJson(res, 429, {}, { 'retry-after': '0' }) : sendJson(res, 201, { id: 'u1' }),
    );
    const res = await client(server.baseUrl).json({
      method: 'POST',
      endpoint: '/users',
      json: { email: 'a@b.c' },
    });
    expect(res.status).toBe(201);
    expect(server.seen.map((s) => s.body)).toEqual(['{"email":"a@b.c"}', '{"email":"a@b.c"}']);
  });

  it('waits out a 503 with Retry-After for a POST too, for time not a count of retries (a failover)', async () => {
    // Eight answers "unavailable, come back in 1 s": more than maxRetries (3), well within the
    // timeout; the service did not act on any of them, so the create is sent again.
    const server = await serve((_req, res, n) =>
      n <= 8
        ? sendJson(res, 503, { message: 'database unavailable' }, { 'retry-after': '1' })
        : sendJson(res, 201, { id: 'u1' }),
    );
    const slept: number[] = [];
    const notices: RetryInfo[] = [];
    const http = client(server.baseUrl, {
      timeoutMs: 30_000,
      onRetry: (i) => notices.push(i),
      sleep: async (ms) => void slept.push(ms),
    });
    const res = await http.json({ method: 'POST', endpoint: '/users', json: { email: 'a@b.c' } });
    expect(res.status).toBe(201);
    expect(slept).toEqual(Array(8).fill(1000));
    expect(server.seen).toHaveLength(9);
    expect(notices[7]).toMatchObject({ retry: 8, untilMs: 30_000 });
  });

  it('stops waiting for an unavailable service once --timeout has been waited', async () => {
    const server = await serve((_req, res) =>
      sendJson(res, 503, { message: 'database unavailable' }, { 'retry-after': '2' }),
    );
    const slept: number[] = [];
    const http = client(server.baseUrl, {
      timeoutMs: 9_000,
      sleep: async (ms) => void slept.push(ms),
    });
    const err = await rejection(getUser(http, 'x'));
    expect(err).toMatchObject({ status: 503 });
    // Past maxRetries (3) and the 5 s total of other retries: 8 s waited, a 10th would exceed 9.
    expect(slept).toEqual([2000, 2000, 2000, 2000]);
  });

  it('does not send a create again when the service says its outcome is unknown', async () => {
    const server = await serve((_req, res) =>
      sendJson(
        res,
        503,
        { message: 'outcome unknown' },
        { 'retry-after': '1', 'roster-outcome': 'unknown' },
      ),
    );
    const http = client(server.baseUrl, { sleep: async () => {} });
    const err = await rejection(
      http.json({ method: 'POST', endpoint: '/users', json: { email: 'a@b.c' } }),
    );
    expect(err).toMatchObject({ status: 503, outcomeUnknown: true });
    expect(server.seen).toHaveLength(1);
  });

  it('does not retry a POST on a 503 without Retry-After', async () => {
    const server = await serve((_req, res) => sendJson(res, 503, {}));
    const http = client(server.baseUrl, { sleep: async () => {} });
    await rejection(http.json({ method: 'POST', endpoint: '/users', json: {} }));
    expect(server.seen).toHaveLength(1);
  });

  it('gives up at once when Retry-After exceeds the total wait cap', async () => {
    const server = await serve((_req, res) => sendJson(res, 429, {}, { 'retry-after': '60' }));
    const slept: number[] = [];
    const http = client(server.baseUrl, {
      retry: { ...FAST, maxTotalWaitMs: 500 },
      sleep: async (ms) => void slept.push(ms),
    });
    const err = await rejection(getUser(http, 'x'));
    expect(slept).toEqual([]);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 60_000 });
    expect(server.seen).toHaveLength(1);
  });

  it('caps the total backoff wait', async () => {
    const server = await serve((_req, res) => sendJson(res, 503, {}));
    const retry = { baseDelayMs: 40, maxDelayMs: 40, maxRetries: 50, maxTotalWaitMs: 100 };
    const delays: number[] = [];
    const slept: number[] = [];
    const http = client(server.baseUrl, {
      retry,
      onRetry: (i) => delays.push(i.delayMs),
      sleep: async (ms) => void slept.push(ms),
    });
    await expect(getUser(http, 'x')).rejects.toBeInstanceOf(ApiError);
    expect(slept).toEqual(delays);
    expect(slept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(100);
    expect(server.seen.length).toBe(delays.length + 1);
    expect(server.seen.length).toBeLessThan(51);
  });
});

describe('network errors', () => {
  let raw: Server | undefined;
  afterEach(() => raw?.close());

  async function destroyingServer() {
    let connections = 0;
    raw = createServer();
    raw.on('connection', (socket) => {
      connections++;
      socket.once('data', () => socket.destroy());
    });
    await new Promise<void>((resolve) => raw?.listen(0, '127.0.0.1', resolve));
    const { port } = raw.address() as AddressInfo;
    return { baseUrl: `http://127.0.0.1:${port}/api`, connections: () => connections };
  }

  it('retries a GET whose connection is reset, then reports it', async () => {
    const server = await destroyingServer();
    const retries: RetryInfo[] = [];
    const err = await rejection(
      getUser(client(server.baseUrl, { onRetry: (i) => retries.push(i) }), 'x'),
    );
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).attempts).toBe(FAST.maxRetries + 1);
    expect((err as NetworkError).message).toContain('closed before the answer');
    expect(retries).toHaveLength(FAST.maxRetries);
    expect(server.connections()).toBe(FAST.maxRetries + 1);
  });

  it('does not retry a POST reset after sending', async () => {
    const server = await destroyingServer();
    const http = client(server.baseUrl);
    const err = await rejection(http.json({ method: 'POST', endpoint: '/users', json: {} }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(server.connections()).toBe(1);
  });

  it('does not retry a one-shot stream body once it was read', async () => {
    const server = await destroyingServer();
    const http = client(server.baseUrl);
    const body = Readable.from([Buffer.from('hello')]);
    const err = await rejection(
      http.request({
        method: 'PUT',
        url: '/blob',
        body,
        contentLength: 5,
        contentType: 'text/plain',
      }),
    );
    expect(err).toBeInstanceOf(NetworkError);
    expect(server.connections()).toBe(1);
  });

  it('retries connection refused, even for POST, and names the cause', async () => {
    const baseUrl = `http://127.0.0.1:${await freePort()}/api`;
    const retries: RetryInfo[] = [];
    const http = client(baseUrl, { onRetry: (i) => retries.push(i) });
    const err = await rejection(http.json({ method: 'POST', endpoint: '/users', json: {} }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'ECONNREFUSED', attempts: FAST.maxRetries + 1 });
    expect((err as Error).message).toContain('connection refused');
    expect((err as Error).message).toContain(baseUrl);
    expect(retries.map((r) => r.reason)).toEqual(['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
  });

  it('times out a silent server', async () => {
    const server = await serve(() => undefined);
    const http = client(server.baseUrl, { timeoutMs: 100, retry: { maxRetries: 0 } });
    const err = await rejection(getUser(http, 'x'));
    expect(err).toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect((err as Error).message).toContain('timeout');
  });
});

describe('error answers', () => {
  it('maps the envelope to ApiError', async () => {
    const envelope = {
      identifier: 40000,
      statusCode: 400,
      message: 'Invalid body',
      type: 'ValidationException',
      details: [{ field: 'email', message: 'is not a valid email address' }],
    };
    const server = await serve((_req, res) => sendJson(res, 400, envelope));
    const err = await rejection(updateUser(client(server.baseUrl), 'u1', { email: 'x@' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 400,
      identifier: 40000,
      type: 'ValidationException',
      serverMessage: 'Invalid body',
      details: envelope.details,
      method: 'PUT',
      url: `${server.baseUrl}/users/u1`,
    });
    expect((err as Error).message).toContain('email: is not a valid email address');
  });

  it('says what to do about a 401', async () => {
    const server = await serve((_req, res) =>
      sendJson(res, 401, {
        identifier: 40102,
        statusCode: 401,
        message: 'This endpoint requires authentication',
        type: 'NotLoggedInException',
      }),
    );
    const err = await rejection(getUser(client(server.baseUrl), 'u1'));
    expect(err).toMatchObject({ status: 401, identifier: 40102 });
    expect(userMessage(err)).toContain('roster login');
  });

  it('reports an HTML answer as a wrong base URL', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><head><title>Welcome to nginx!</title></head></html>');
    });
    const err = await rejection(listUsers(client(server.baseUrl)));
    expect(err).toBeInstanceOf(ResponseFormatError);
    expect(err).toMatchObject({ status: 200, contentType: 'text/html; charset=utf-8' });
    const message = userMessage(err);
    expect(message).toContain(`${server.baseUrl}/users`);
    expect(message).toContain('text/html');
    expect(message).toContain('Welcome to nginx!');
    expect(message).toContain('base URL');
  });

  it('reports an HTML error page the same way', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not Found</h1>');
    });
    const err = await rejection(getUser(client(server.baseUrl), 'u1'));
    expect(err).toBeInstanceOf(ResponseFormatError);
    expect(err).toMatchObject({ status: 404 });
  });
});

describe('redirects', () => {
  it('names the redirect target instead of following it', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(301, { location: 'https://tenant.example.com/api/users' }).end();
    });
    const err = await rejection(listUsers(client(server.baseUrl)));
    expect(err).toBeInstanceOf(ResponseFormatError);
    expect((err as Error).message).toContain('redirect to https://tenant.example.com/api/users');
  });
});

describe('raw requests', () => {
  it('sends the token only to the base URL origin', async () => {
    const api = await serve((_req, res) => void res.end('same'));
    const cdn = await serve((_req, res) => void res.end('other'));
    const http: HttpClient = client(api.baseUrl);
    const same = await http.request({ method: 'GET', url: `${api.origin}/cdn/a.png` });
    const other = await http.request({
      method: 'GET',
      url: `${cdn.origin}/t/a.png?signature=s3cr3t`,
    });
    expect(await text(same.body)).toBe('same');
    expect(await text(other.body)).toBe('other');
    expect(api.seen[0]?.headers.authorization).toBe(`Basic ${TOKEN}`);
    expect(cdn.seen[0]?.headers.authorization).toBeUndefined();
  });
});

describe('secrets in URLs', () => {
  it('error messages and urls redact signatures and tokens in the query', () => {
    const url = 'http://x/cdn/a.png?expires=1&signature=s3cr3t&token=t0k';
    expect(redactUrl(url)).toBe('http://x/cdn/a.png?expires=1&signature=REDACTED&token=REDACTED');
    const err = new ApiError({ status: 403, method: 'GET', url, envelope: undefined } as never);
    expect(err.message).not.toContain('s3cr3t');
    expect(err.url).not.toContain('s3cr3t');
  });
});

describe('answers larger than anything the service sends', () => {
  it('an endless JSON body fails at the 64 MiB cap, naming it, without reading on', async () => {
    const chunk = Buffer.alloc(1024 * 1024, ' ');
    let sent = 0;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const pump = () => {
        while (!res.destroyed && sent < 1024) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(']');
      };
      pump();
      res.on('close', () => {
        sent = 1024;
      });
    });
    const http = client(server.baseUrl, { retry: { maxRetries: 0 } });
    const before = process.memoryUsage().rss;
    const err = await rejection(listUsers(http));
    expect(err).toBeInstanceOf(ResponseFormatError);
    expect((err as Error).message).toContain('larger than 64 MiB');
    expect(process.memoryUsage().rss - before).toBeLessThan(400 * 1024 * 1024);
  });

  it('a declared Content-Length over the cap fails before reading', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(700 * 1024 * 1024),
      });
      res.write('[');
    });
    const http = client(server.baseUrl, { retry: { maxRetries: 0 } });
    const err = await rejection(listUsers(http));
    expect((err as Error).message).toContain('larger than 64 MiB');
  });
});

describe('a DELETE retried after the first attempt may have acted', () => {
  it('a 404 after a retried 503 means the first attempt removed it', async () => {
    const server = await serve((_req, res, n) =>
      n === 1 ? sendJson(res, 503, { message: 'busy' }) : sendJson(res, 404, { message: 'gone' }),
    );
    const http = client(server.baseUrl);
    await expect(deleteUser(http, 'u1')).resolves.toBeUndefined();
    expect(server.seen.map((s) => s.method)).toEqual(['DELETE', 'DELETE']);
  });

  it('a 404 on the first attempt is still not found', async () => {
    const server = await serve((_req, res) => sendJson(res, 404, { message: 'gone' }));
    const err = await rejection(deleteUser(client(server.baseUrl), 'u1'));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
  });
});

describe('hints that point at the real cause', () => {
  const envelope = (status: number, type: string, message: string, details?: unknown) => ({
    identifier: status * 100,
    statusCode: status,
    message,
    type,
    ...(details ? { details } : {}),
  });

  it('a 409 about activation names the secret, not another user', async () => {
    const server = await serve((_req, res) =>
      sendJson(
        res,
        409,
        envelope(409, 'ConflictException', 'user x has not signed up yet', [
          { field: 'status', message: 'a pending user needs a secret to be activated' },
        ]),
      ),
    );
    const err = await rejection(updateUser(client(server.baseUrl), 'x', { status: 'activated' }));
    const message = userMessage(err);
    expect(message).not.toContain('Another user');
    expect(message).toContain('secret');
  });

  it('a 409 on a unique field names that field', async () => {
    const server = await serve((_req, res) =>
      sendJson(
        res,
        409,
        envelope(409, 'ConflictException', "email 'a@x' is already used", [
          { field: 'email', message: 'is already in use' },
        ]),
      ),
    );
    const err = await rejection(updateUser(client(server.baseUrl), 'x', { email: 'a@x' }));
    expect(userMessage(err)).toContain('Another user of this tenant already has this email');
  });

  it('a missing medium talks about media; a path without /api suggests the base URL', async () => {
    const server = await serve((_req, res) =>
      sendJson(res, 404, envelope(404, 'NotFoundException', 'not found')),
    );
    const { getMedium } = await import('../../src/client/media.js');
    const media = await rejection(getMedium(client(server.baseUrl), 'm1'));
    expect(userMessage(media)).toContain('roster media list');
    expect(userMessage(media)).not.toContain('externalId');
    const origin = server.baseUrl.replace(/\/api$/, '');
    const bare = await rejection(getUser(client(origin), 'u1'));
    expect(userMessage(bare)).toContain(`did you mean ${origin}/api?`);
  });

  it('https:// against a plain-HTTP server says so, once, and suggests http://', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, page));
    const https = server.baseUrl.replace('http://', 'https://');
    const retries: RetryInfo[] = [];
    const http = client(https, { onRetry: (r) => retries.push(r) });
    const err = await rejection(getUser(http, 'u1'));
    expect((err as Error).message).toContain('speaks plain HTTP');
    expect((err as Error).message).toContain(server.baseUrl);
    expect(retries).toEqual([]);
  });
});
