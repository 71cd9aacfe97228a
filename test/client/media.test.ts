import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Busboy } from '@fastify/busboy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import { guessMediumType } from '../../src/client/media.js';
import { sendJson, startServer } from '../helpers/fake-server.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

interface Parsed {
  fields: Record<string, string>;
  file?: {
    name: string;
    fileName: string | undefined;
    mimeType: string;
    sha: string;
    size: number;
  };
}

/** Parses a multipart request with the service's parser (@fastify/busboy, UTF-8 file names). */
function parseMultipart(req: IncomingMessage): Promise<Parsed> {
  return new Promise((resolve, reject) => {
    const parsed: Parsed = { fields: {} };
    const bb = Busboy({
      headers: { ...req.headers, 'content-type': req.headers['content-type'] ?? '' },
    });
    bb.on('field', (name, value) => {
      parsed.fields[name] = value;
    });
    bb.on('file', (name, stream, fileName, _encoding, mimeType) => {
      const hash = createHash('sha256');
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        size += chunk.length;
      });
      stream.on('end', () => {
        parsed.file = {
          name,
          fileName,
          mimeType,
          sha: hash.digest('hex'),
          size,
        };
      });
    });
    bb.on('finish', () => resolve(parsed));
    bb.on('error', reject);
    req.pipe(bb);
  });
}

let dir: string;
let filePath: string;
let content: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'roster-client-'));
  content = randomBytes(3 * 1024 * 1024 + 17);
  filePath = join(dir, 'photo.png');
  await writeFile(filePath, content);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function setup(respond: (n: number) => number = () => 200) {
  const uploads: { parsed: Parsed; headers: IncomingMessage['headers'] }[] = [];
  const server = await startServer(
    async (req, res, n) => {
      if (respond(n) === 429) {
        req.resume();
        return sendJson(res, 429, {}, { 'retry-after': '0' });
      }
      const parsed = await parseMultipart(req);
      uploads.push({ parsed, headers: req.headers });
      sendJson(res, 200, { id: 'm1', fileName: parsed.file?.fileName, entityType: 'medium' });
    },
    { raw: true },
  );
  const client = createApiClient({
    baseUrl: server.baseUrl,
    token: 'tok',
    retry: { baseDelayMs: 5, maxRetries: 2 },
  });
  cleanup.push(server.close, client.close);
  return { server, client, uploads };
}

describe('uploadMedium', () => {
  it('streams a multipart body with an exact Content-Length', async () => {
    const { client, uploads, server } = await setup();
    const progress: number[] = [];
    const medium = await client.uploadMedium({
      filePath,
      fileName: 'Ünïcode "quoted".png',
      onProgress: (sent, total) => {
        expect(total).toBe(content.length);
        progress.push(sent);
      },
    });
    expect(medium).toMatchObject({ id: 'm1', fileName: 'Ünïcode %22quoted%22.png' });
    const [upload] = uploads;
    expect(upload?.headers['transfer-encoding']).toBeUndefined();
    expect(Number(upload?.headers['content-length'])).toBeGreaterThan(content.length);
    expect(upload?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(upload?.headers.accept).toBe('application/json');
    expect(JSON.parse(upload?.parsed.fields.metaData ?? '')).toEqual({ type: 'image' });
    expect(upload?.parsed.file).toMatchObject({
      name: 'file',
      mimeType: 'image/png',
      size: content.length,
      sha: sha256(content),
    });
    expect(progress.at(-1)).toBe(content.length);
    expect(server.seen).toHaveLength(1);
  });

  it('re-reads the file when a 429 asks for a retry', async () => {
    const { client, uploads, server } = await setup((n) => (n === 1 ? 429 : 200));
    await client.uploadMedium({ filePath, type: 'raw' });
    expect(server.seen).toHaveLength(2);
    expect(uploads[0]?.parsed.file?.sha).toBe(sha256(content));
    expect(JSON.parse(uploads[0]?.parsed.fields.metaData ?? '')).toEqual({ type: 'raw' });
  });
});

describe('media endpoints', () => {
  it('lists, gets and deletes with encoded ids', async () => {
    const server = await startServer((req, res) => {
      if (req.method === 'DELETE') {
        res.writeHead(204).end();
        return;
      }
      sendJson(
        res,
        200,
        req.url?.includes('?') ? { total: 0, limit: 5, offset: 0, data: [] } : { id: 'a b' },
      );
    });
    const client = createApiClient({ baseUrl: server.baseUrl, token: 'tok' });
    cleanup.push(server.close, client.close);
    await expect(client.listMedia({ limit: 5 })).resolves.toMatchObject({ limit: 5 });
    await expect(client.getMedium('a b')).resolves.toEqual({ id: 'a b' });
    await expect(client.deleteMedium('a b')).resolves.toBeUndefined();
    expect(server.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /api/media?limit=5',
      'GET /api/media/a%20b',
      'DELETE /api/media/a%20b',
    ]);
  });

  it('downloads a relative CDN URL with the token, streaming the bytes', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(content);
    });
    const client = createApiClient({ baseUrl: server.baseUrl, token: 'tok' });
    cleanup.push(server.close, client.close);
    const stream = await client.downloadUrl('/cdn/t/main/m1/photo.png');
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(content));
    expect(server.seen[0]).toMatchObject({ url: '/cdn/t/main/m1/photo.png' });
    expect(server.seen[0]?.headers.authorization).toBe('Basic tok');
  });
});

describe('downloads and redirects (CONTRACT: at most 5, the token stays on its origin)', () => {
  it('follows a redirect to another origin without the token', async () => {
    const cdn = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(content);
    });
    const api = await startServer((_req, res) => {
      res.writeHead(302, { location: `${cdn.origin}/files/photo.png` });
      res.end('<html>moved</html>');
    });
    const client = createApiClient({ baseUrl: api.baseUrl, token: 'tok' });
    cleanup.push(cdn.close, api.close, client.close);
    const chunks: Buffer[] = [];
    for await (const chunk of await client.downloadUrl('/cdn/x')) chunks.push(chunk as Buffer);
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(content));
    expect(api.seen[0]?.headers.authorization).toBe('Basic tok');
    expect(cdn.seen[0]?.headers.authorization).toBeUndefined();
  });

  it('a redirect loop fails after 5 hops instead of saving a 3xx body', async () => {
    const api = await startServer((req, res) => {
      res.writeHead(301, { location: `${req.url}x` });
      res.end('moved');
    });
    const client = createApiClient({ baseUrl: api.baseUrl, token: 'tok' });
    cleanup.push(api.close, client.close);
    const err = await client.downloadUrl('/cdn/a').catch((e) => e);
    expect(err.message).toContain('more than 5 redirects');
    expect(api.seen).toHaveLength(6);
  });

  it('a 3xx without a usable Location is an error, not a file', async () => {
    const api = await startServer((_req, res) => {
      res.writeHead(302, { location: 'ftp://elsewhere/x' });
      res.end('moved');
    });
    const client = createApiClient({ baseUrl: api.baseUrl, token: 'tok' });
    cleanup.push(api.close, client.close);
    const err = await client.downloadUrl('/cdn/a').catch((e) => e);
    expect(err.message).toContain('answered 302');
  });
});

it('guesses the metaData type from the extension', () => {
  expect(guessMediumType('a.JPG')).toEqual(['image', 'image/jpeg']);
  expect(guessMediumType('b.mp4')[0]).toBe('video');
  expect(guessMediumType('c.pdf')[0]).toBe('pdf');
  expect(guessMediumType('d.bin')).toEqual(['raw', 'application/octet-stream']);
});
