import { connect } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  // A short keep-alive timeout (the default is 65 s, above a load balancer's).
  s = await startServer({ keepAliveTimeoutMs: 2000 });
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
  const closed = new Promise<number>((resolve) => {
    let idleSince = 0;
    socket.on('data', (chunk) => {
      received += chunk;
      const count = received.split('HTTP/1.1 200 OK').length - 1;
      if (count > answers) {
        answers = count;
        idleSince = Date.now();
        if (answers < 3) socket.write(uploadRequest(s.adminToken, `f${answers}.txt`));
      }
    });
    socket.on('close', () => resolve(Date.now() - idleSince));
  });
  socket.write(uploadRequest(s.adminToken, 'f0.txt'));
  const idleMs = await closed;
  expect(answers).toBe(3);
  // The keep-alive timeout is 2 s here; the upload's 5-minute idle timeout must not outlive it.
  expect(idleMs).toBeLessThan(10_000);
}, 30_000);
