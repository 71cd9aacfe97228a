import { connect } from 'node:net';
import { expect, test } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { serverForFile, V3 } from '../../helpers/server.js';

const s = await serverForFile();

/**
 * Raw bytes on a socket: for requests no well-behaved client library would send. `end: false`
 * keeps this side open until the server closes it; `'cut'` drops the connection as soon as the
 * bytes are out.
 */
function raw(request: string, { end = true as boolean | 'cut' } = {}): Promise<string> {
  const { port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let data = '';
    socket.on('data', (c) => {
      data += c;
    });
    socket.on('end', () => resolve(data));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    if (end === 'cut') socket.write(request, () => socket.destroy());
    else socket.write(request);
    if (end === true) socket.end();
  });
}

test('malformed percent-encoding in the path is a 400 or 404 envelope, not a 500', async () => {
  for (const path of ['/api/users/%E0%A4%A', '/api/users/%ZZ', `/api/users/${'a'.repeat(4000)}`]) {
    const r = await s.req('GET', path);
    expect([400, 404], path).toContain(r.status);
    expect(r.json.identifier, path).toBeGreaterThanOrEqual(40000);
  }
});

test('a body cut short by the client leaves nothing behind and does not crash the server', async () => {
  const body = JSON.stringify({ email: 'cut@example.com', externalId: 'cut' });
  await raw(
    `POST /api/users HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${s.adminToken}\r\nContent-Type: ${V3}\r\nContent-Length: ${body.length + 50}\r\n\r\n${body}`,
    { end: 'cut' },
  );
  // The server logs every request it is done with, this one too.
  await eventually(() => s.logs.some((l) => l.startsWith('POST /api/users ')));
  expect((await s.req('GET', '/api/users/cut')).status).toBe(404);
  expect((await s.req('GET', '/api/users')).status).toBe(200);
  expect(s.logs.filter((l) => l.startsWith('error'))).toEqual([]);
});

test('a lying Content-Length larger than the limit is refused before reading', async () => {
  const answer = await raw(
    `POST /api/users HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${s.adminToken}\r\nContent-Type: ${V3}\r\nContent-Length: 999999999\r\nConnection: close\r\n\r\n{}`,
    // The client keeps its side open, as one still sending would: a client that half-closes
    // has cut its body short (the test above), whatever the answer was going to be.
    { end: false },
  );
  expect(answer).toMatch(/^HTTP\/1.1 413/);
  expect(answer).toContain('"identifier":41300');
});

test('deeply nested or huge-number JSON is a validation error', async () => {
  const nested = `${'['.repeat(5000)}${']'.repeat(5000)}`;
  for (const body of [
    nested,
    '{"email": 1e999}',
    '{"email":"a@example.com","profile":{"firstName":"\\ud800"}}',
  ]) {
    const r = await s.req('POST', '/api/users', { headers: { 'content-type': V3 }, body });
    expect([400, 201], body.slice(0, 20)).toContain(r.status);
    expect(r.status === 500).toBe(false);
  }
});

test('a method the server does not know is 501 in the envelope, not Koa text', async () => {
  for (const method of ['PROPFIND', 'TRACE', 'MKCOL']) {
    const r = await s.req(method, '/api/users');
    expect(r.status, method).toBe(501);
    expect(r.headers['content-type'], method).toContain('application/json');
    expect(r.json, method).toMatchObject({ identifier: 50100, type: 'NotImplementedException' });
  }
});

test('requests Node refuses before the app sees them get a JSON envelope', async () => {
  const huge = await raw(
    `GET /api/users HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
  );
  expect(huge).toMatch(/^HTTP\/1.1 431/);
  expect(huge).toContain('Content-Type: application/json');
  expect(huge).toContain('"identifier":43100');
  const garbage = await raw('BLAH /\x01 HTTP/9\r\n\r\n');
  expect(garbage).toMatch(/^HTTP\/1.1 400/);
  expect(garbage).toContain('"identifier":40000');
  expect(garbage).toContain('"type":"ValidationException"');
});

test('API answers are never sniffed or stored by a cache', async () => {
  for (const path of ['/api/users', '/api/users/nobody', '/api', '/api/openapi.json', '/nowhere']) {
    const r = await s.req('GET', path);
    expect(r.headers['x-content-type-options'], path).toBe('nosniff');
    expect(r.headers['cache-control'], path).toBe('no-store');
  }
});
