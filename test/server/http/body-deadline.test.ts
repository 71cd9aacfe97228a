/** Bodies of the JSON endpoints arrive in time or get 408; a refused body is not read on. */
import { connect } from 'node:net';
import { expect, test } from 'vitest';
import { serverForFile, V3 } from '../../helpers/server.js';

const s = await serverForFile({ bodyTimeoutMs: 300 });

/** Opens a socket, sends the head of a POST /api/users, and collects what comes back. */
function open(contentLength: number | string) {
  const { port } = new URL(s.url);
  const socket = connect(Number(port), '127.0.0.1');
  let answer = '';
  socket.on('data', (c) => {
    answer += c;
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST /api/users HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${s.adminToken}\r\n` +
      `Content-Type: ${V3}\r\nAccept: ${V3}\r\nContent-Length: ${contentLength}\r\n\r\n`,
  );
  return { socket, closed, answer: () => answer };
}

const envelopeOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

test('a body that never comes is 408 in the envelope, and the connection is closed', async () => {
  const c = open(40);
  c.socket.write('{"email":');
  await c.closed;
  expect(c.answer()).toMatch(/^HTTP\/1.1 408/);
  expect(envelopeOf(c.answer())).toMatchObject({
    identifier: 40800,
    type: 'RequestTimeoutException',
  });
  expect((await s.req('GET', '/api/users?status=pending')).json.total).toBe(0);
});

test('a body trickled slower than the deadline is cut too (the deadline is not an idle timer)', async () => {
  const body = JSON.stringify({ email: 'slow@example.com' });
  const c = open(body.length);
  let i = 0;
  const drip = setInterval(() => {
    if (i < body.length && !c.socket.destroyed) c.socket.write(body[i++]!);
  }, 40);
  await c.closed;
  clearInterval(drip);
  expect(c.answer()).toMatch(/^HTTP\/1.1 408/);
  expect((await s.req('GET', '/api/users/slow@example.com')).status).toBe(404);
});

test('after a 413 the rest of the body is read only briefly, then the connection is cut', async () => {
  const c = open(600 * 1024 * 1024);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let written = 0;
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (!c.socket.destroyed && written < 128 * 1024 * 1024) {
        written += chunk.length;
        if (!c.socket.write(chunk)) return void c.socket.once('drain', pump);
      }
      resolve();
    };
    c.socket.once('close', () => resolve());
    pump();
  });
  await c.closed;
  expect(c.answer()).toMatch(/^HTTP\/1.1 413/);
  // What the kernel buffers on both sides, not what the server read on.
  expect(written).toBeLessThan(24 * 1024 * 1024);
});

test('a body that arrives in time is served, on a connection that stays open', async () => {
  const body = JSON.stringify({ email: 'fine@example.com' });
  const c = open(body.length);
  c.socket.write(body);
  await new Promise<void>((resolve) => c.socket.once('data', () => resolve()));
  expect(c.answer()).toMatch(/^HTTP\/1.1 201/);
  expect(c.socket.destroyed).toBe(false);
  c.socket.destroy();
});
