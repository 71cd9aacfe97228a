/**
 * Request headers that never finish are cut, on the server `listen` sets up (the one `serve`
 * runs), whatever the client does after the 408: a raw client that keeps its side open and goes
 * on trickling bytes (a half-open socket) was left connected for ever. And one client address
 * holds at most so many connections at once.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type App, createApp } from '../../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../../src/server/config.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
let app: App;
let port: number;
beforeAll(async () => {
  s = await startServer();
  // Another app on the same store, as serve creates and listens it, with small timeouts.
  app = await createApp({
    store: s.store,
    config: {
      dataDir: s.dataDir,
      vendor: 'service',
      maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
      headersTimeoutMs: 500,
    },
  });
  port = (await app.listen(0)).port;
});
afterAll(async () => {
  await app?.close(0);
  await s?.close();
});

/** A raw socket that keeps its side open when the server ends its own (allowHalfOpen). */
function rawSocket(to = port) {
  const socket = connect({ port: to, host: '127.0.0.1', allowHalfOpen: true });
  let answer = '';
  socket.on('data', (c) => {
    answer += c;
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, closed, ended, connected, answer: () => answer };
}

/**
 * Writes a never-ending header a byte at a time. Once the server has closed the connection (not
 * only ended its side), a write is refused (EPIPE or a reset) and the socket closes: so
 * `closed` resolving proves the server let the connection go.
 */
function trickle(socket: Socket) {
  const head = `GET /api/users HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(100_000)}`;
  let i = 0;
  const next = () => {
    if (socket.destroyed || i >= head.length) return;
    socket.write(head[i++]!, () => setTimeout(next, 20));
  };
  next();
}

test('a header trickled past the headers deadline gets 408 and the connection is closed, though the client keeps writing', async () => {
  const c = rawSocket();
  trickle(c.socket);
  await c.closed;
  expect(c.answer()).toMatch(/^HTTP\/1.1 408 /);
  expect(c.answer()).toContain('"identifier":40800');
});

test('a connection that sends nothing is answered 408 at the headers deadline and closed', async () => {
  const c = rawSocket();
  await c.ended;
  expect(c.answer()).toMatch(/^HTTP\/1.1 408 /);
  trickle(c.socket);
  await c.closed;
});

test('beyond maxConnectionsPerClient open connections from one address, the next is answered 503 and closed', async () => {
  // Deadlines of the default length here: the held connections stay until they are used.
  const capped = await createApp({
    store: s.store,
    config: {
      dataDir: s.dataDir,
      vendor: 'service',
      maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
      maxConnectionsPerClient: 3,
    },
  });
  const at = (await capped.listen(0)).port;
  try {
    const held = [rawSocket(at), rawSocket(at), rawSocket(at)];
    await Promise.all(held.map((h) => h.connected));
    const over = rawSocket(at);
    await over.ended;
    expect(over.answer()).toMatch(/^HTTP\/1.1 503 /);
    expect(over.answer()).toContain('"identifier":50300');
    expect(over.answer()).toMatch(/\r\nRetry-After: 5\r\n/);
    trickle(over.socket);
    await over.closed;
    // The held ones work, and once the server has closed them the address may connect again.
    for (const h of held)
      h.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await Promise.all(held.map((h) => h.ended));
    for (const h of held) expect(h.answer()).toMatch(/^HTTP\/1.1 200 /);
    const res = await fetch(`http://127.0.0.1:${at}/healthz`);
    expect(res.status).toBe(200);
  } finally {
    await capped.close(0);
  }
});
