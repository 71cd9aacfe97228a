/** Upload limits, aborted uploads and memory bounds: in-process, where the server can be measured. */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serverForTest, startServer, type TestServer } from '../../helpers/server.js';
import {
  blobKeys,
  eventually,
  fixtures,
  mediaRows,
  read,
  tempFiles,
  upload,
  uploadBody,
} from './media-helpers.js';

const LIMIT = 10_000;
let s: TestServer;
let files: Awaited<ReturnType<typeof fixtures>>;
beforeAll(async () => {
  [s, files] = await Promise.all([startServer({ maxUploadBytes: LIMIT }), fixtures()]);
});
afterAll(() => s.close());

async function nothingLeft() {
  expect(await mediaRows(s)).toBe(0);
  await eventually(async () => (await tempFiles(s)).length === 0);
  expect(await blobKeys(s)).toEqual([]);
}

describe('--max-upload-size', () => {
  test('a file one byte over the limit → 413 41300, temp file removed', async () => {
    const r = await upload(s, randomBytes(LIMIT + 1), 'over.bin');
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ identifier: 41300, type: 'PayloadTooLargeException' });
    expect(r.json.message).toContain(String(LIMIT));
    await nothingLeft();
  });

  test('a body declared far over the limit is refused before it is read', async () => {
    const r = await upload(s, randomBytes(LIMIT + 200_000), 'huge.bin');
    expect(r.status).toBe(413);
    await nothingLeft();
  });

  test('a chunked body (no Content-Length) over the limit → 413', async () => {
    const { body, contentType } = uploadBody(randomBytes(50_000), 'chunked.bin');
    const res = await request(`${s.url}/api/media`, {
      method: 'POST',
      headers: { authorization: `Basic ${s.adminToken}`, 'content-type': contentType },
      body: Readable.from(
        (function* () {
          for (let i = 0; i < body.length; i += 4096) yield body.subarray(i, i + 4096);
        })(),
      ),
    });
    expect(res.statusCode).toBe(413);
    await res.body.dump();
    await nothingLeft();
  });

  test('exactly the limit is accepted; the connection stays usable after a 413', async () => {
    const data = randomBytes(LIMIT);
    const ok = await upload(s, data, 'exact.bin');
    expect(ok.status).toBe(200);
    expect(ok.json.resourceInfo.bytes).toBe(LIMIT);
    const del = await s.req('DELETE', `/api/media/${ok.json.id}`);
    expect(del.status).toBe(204);
    expect(await blobKeys(s)).toEqual([]);
  });
});

describe('aborted uploads', () => {
  test('a client that drops the connection half-way leaves no temp file, row or blob', async () => {
    const port = Number(new URL(s.url).port);
    const { body, contentType } = uploadBody(randomBytes(LIMIT - 100), 'half.bin');
    const socket = connect(port, '127.0.0.1');
    await new Promise((ok) => socket.once('connect', ok));
    socket.write(
      `POST /api/media HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic ${s.adminToken}\r\n` +
        `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, body.length / 2));
    await eventually(async () => (await tempFiles(s)).length === 1);
    socket.destroy();
    await nothingLeft();
    expect(s.logs.filter((l) => l.startsWith('error'))).toEqual([]);
    // The server is fine afterwards.
    expect((await upload(s, Buffer.from('after'), 'after.txt')).status).toBe(200);
  });
});

describe('hostile images', () => {
  test('a 900-megapixel bomb gets no preview and little memory', async () => {
    const big = await serverForTest();
    const bomb = read(files.pixelBomb);
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const r = await upload(big, bomb, 'bomb.png');
    clearInterval(timer);
    expect(r.status).toBe(200);
    expect(r.json.transformations?.t_preview).toBeUndefined();
    expect(peak - before).toBeLessThan(200 * 1024 * 1024);
  });
});

describe('preview deadline', () => {
  test('a preview that runs out of time is dropped; the upload still succeeds', async () => {
    const slow = await serverForTest({ previewTimeoutMs: 1 });
    const r = await upload(slow, read(files.pdf), 'doc.pdf');
    expect(r.status).toBe(200);
    expect(r.json.resourceInfo).toMatchObject({ type: 'pdf', bytes: read(files.pdf).length });
    expect(r.json).not.toHaveProperty('transformations');
    expect(await tempFiles(slow)).toEqual([]);
  });
});

describe('refused uploads are not read on', () => {
  test('an upload streaming past the limit gets its 413 and a closed connection', async () => {
    const rowsBefore = await mediaRows(s);
    const port = Number(new URL(s.url).port);
    const { contentType } = uploadBody(Buffer.alloc(1), 'x.bin');
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    let answer = '';
    socket.on('data', (c) => {
      answer += c;
    });
    socket.write(
      `POST /api/media HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${s.adminToken}\r\n` +
        `Content-Type: ${contentType}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const boundary = /boundary=(.+)$/.exec(contentType)![1];
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    socket.write(`${Buffer.byteLength(head).toString(16)}\r\n${head}\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 'b');
    let written = 0;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      const pump = () => {
        while (!socket.destroyed && written < 256 * 1024 * 1024) {
          written += chunk.length;
          socket.write(`${chunk.length.toString(16)}\r\n`);
          socket.write(chunk);
          const ok = socket.write('\r\n');
          if (!ok) return void socket.once('drain', pump);
        }
        resolve();
      };
      pump();
    });
    expect(answer, answer.slice(0, 600).replace(/\r\n/g, ' | ')).toMatch(/^HTTP\/1.1 413/);
    expect(written).toBeLessThan(24 * 1024 * 1024);
    expect(await mediaRows(s)).toBe(rowsBefore);
    await eventually(async () => (await tempFiles(s)).length === 0);
  });
});
