import { connect } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  // A short keep-alive timeout (the default is 65 s, above a load balancer's); the upload's idle
  // timeout stays at its default of 5 minutes, far past this test's own timeout.
  s = await startServer({ keepAliveTimeoutMs: 1000 });
});
afterAll(() => s.close());

function uploadRequest(token: string, name: string) {
  const boundary = 'xyzBOUNDARY';
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="metaData"\r\nContent-Type: application/json\r\n\r\n{"type":"raw"}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\nhello ${name}\r\n` +
      `--${boundary}--\r\n`,
  );
  return Buffer.concat([
    Buffer.from(
      `POST /api/media HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
    ),
    body,
  ]);
}

test('after uploads on a keep-alive connection, the server still closes it when idle', async () => {
  const { port } = new URL(s.url);
  const socket = connect(Number(port), '127.0.0.1');
  let answers = 0;
  let received = '';
  // This side never ends the connection: if it closes, the server closed it. Were the upload's
  // idle timeout still armed, that would take 5 minutes and the test would time out instead.
  const closedByServer = new Promise<void>((resolve) => socket.once('end', resolve));
  socket.on('data', (chunk) => {
    received += chunk;
    const count = received.split('HTTP/1.1 200 OK').length - 1;
    if (count > answers) {
      answers = count;
      if (answers < 3) socket.write(uploadRequest(s.adminToken, `f${answers}.txt`));
    }
  });
  socket.write(uploadRequest(s.adminToken, 'f0.txt'));
  await closedByServer;
  socket.destroy();
  expect(answers).toBe(3);
});
