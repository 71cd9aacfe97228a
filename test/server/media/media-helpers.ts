/** Multipart bodies built byte by byte (so tests control every part), fixtures, disk checks. */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { sql } from '../../helpers/database.js';
import type { TestServer } from '../../helpers/server.js';

export interface Part {
  name: string;
  data: string | Buffer;
  fileName?: string;
  contentType?: string;
  /** Replaces the whole Content-Disposition value (for hand-made parameters). */
  disposition?: string | Buffer;
}

export function multipart(
  parts: Part[],
  boundary = `----roster-${randomBytes(8).toString('hex')}`,
) {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const file = p.fileName === undefined ? '' : `; filename="${p.fileName}"`;
    const type = p.contentType ? `Content-Type: ${p.contentType}\r\n` : '';
    const disposition = p.disposition ?? `form-data; name="${p.name}"${file}`;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: `),
      Buffer.from(disposition),
      Buffer.from(`\r\n${type}\r\n`),
      Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The usual upload: metaData then file, as the client sends it. */
export function uploadBody(data: Buffer, fileName: string, type?: string) {
  const parts: Part[] = [];
  if (type)
    parts.push({
      name: 'metaData',
      data: JSON.stringify({ type }),
      contentType: 'application/json',
    });
  parts.push({ name: 'file', data, fileName, contentType: 'application/octet-stream' });
  return multipart(parts);
}

export async function upload(
  s: TestServer,
  data: Buffer,
  fileName: string,
  opts: { type?: string; token?: string; host?: string } = {},
) {
  const { body, contentType } = uploadBody(data, fileName, opts.type);
  return s.req('POST', '/api/media', {
    headers: { 'content-type': contentType, ...(opts.host ? { host: opts.host } : {}) },
    body,
    ...(opts.token ? { token: opts.token } : {}),
  });
}

/** The files in the blob store's temp dir (uploads in flight or left behind). */
export async function tempFiles(s: Pick<TestServer, 'store'>): Promise<string[]> {
  const dir = dirname(s.store.blobs.tempPath());
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Every key in the blob store. */
export async function blobKeys(s: Pick<TestServer, 'store'>): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of s.store.blobs.keys()) keys.push(key);
  return keys.sort();
}

/** Polls until `check` holds (or fails the test after `ms`). */
export { eventually } from '../../helpers/eventually.js';

export const mediaRows = async (s: TestServer) =>
  Number((await sql<{ n: number }>(s.store, 'SELECT count(*) AS n FROM media'))[0]!.n);

export const sizeOf = (path: string) => statSync(path).size;
export const read = (path: string) => readFileSync(path);

export type FixtureKey =
  | 'png'
  | 'exifJpeg'
  | 'pdf'
  | 'mp4'
  | 'corruptPng'
  | 'pixelBomb'
  | 'svg'
  | 'empty'
  | 'text';

const FIXTURES_SCRIPT = new URL('../../../fixtures/make-fixtures.mjs', import.meta.url).href;

/** The generated fixtures (made on first use; `mp4` is null without ffmpeg). */
export async function fixtures(): Promise<Record<FixtureKey, string> & { mp4: string | null }> {
  const mod = (await import(FIXTURES_SCRIPT)) as {
    makeFixtures(): Promise<{ paths: Record<FixtureKey, string> & { mp4: string | null } }>;
  };
  return (await mod.makeFixtures()).paths;
}

/** The token id inside a token string (base64 of `<id>:<secret>`). */
export const tokenIdOf = (token: string) =>
  Buffer.from(token, 'base64').toString('utf8').split(':')[0]!;
