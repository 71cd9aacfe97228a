/**
 * The media API against the built CLI's `roster serve` in its own process: each kind of preview
 * the built service makes (sharp, pdf.js, ffmpeg: each from dist/'s own paths), then the typed
 * client's streaming upload and download. The API's rules run in-process on every backend
 * (test/server/media/media.routes.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import { type Served, serve } from '../helpers/e2e.js';
import { fixtures, read, upload } from '../server/media/media-helpers.js';

describe('previews made by the built service', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  afterAll(() => s.close());

  test.each([
    ['png', 'image'],
    ['pdf', 'pdf'],
    ['mp4', 'video'],
  ] as const)('a %s gets a finished preview, served on the CDN', async (key, type) => {
    const path = (await fixtures())[key];
    if (!path) throw new Error(`fixture ${key} is missing (is ffmpeg installed?)`);
    const r = await upload(s, read(path), path.split('/').at(-1)!);
    expect(r.status, r.text).toBe(200);
    expect(r.json.resourceInfo.type).toBe(type);
    const preview = r.json.transformations.t_preview;
    expect(preview).toMatchObject({ status: 'FINISHED', resourceInfo: { type: 'image' } });
    const got = await fetch(preview.resourceInfo.url);
    expect(got.status).toBe(200);
    expect((await got.arrayBuffer()).byteLength).toBe(preview.resourceInfo.bytes);
  });
});

describe('the client against roster serve', () => {
  let s: Served;
  let dir: string;
  beforeAll(async () => {
    [s, dir] = await Promise.all([serve(), mkdtemp(join(tmpdir(), 'roster-media-e2e-'))]);
  });
  afterAll(async () => {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('uploads a UTF-8 named file, downloads it by its signed URL, deletes it', async () => {
    const content = randomBytes(3 * 1024 * 1024 + 5);
    const path = join(dir, 'Grüße aus Köln.bin');
    await writeFile(path, content);
    const client = createApiClient({ baseUrl: `${s.url}/api`, token: s.adminToken });
    try {
      const medium = await client.uploadMedium({ filePath: path });
      expect(medium.fileName).toBe('Grüße aus Köln.bin');
      expect(medium.resourceInfo).toMatchObject({ type: 'raw', bytes: content.length });
      const chunks: Buffer[] = [];
      for await (const chunk of await client.downloadUrl(medium.resourceInfo.url)) {
        chunks.push(chunk as Buffer);
      }
      expect(Buffer.concat(chunks).equals(content)).toBe(true);
      expect((await client.listMedia()).data.map((m) => m.id)).toContain(medium.id);
      await client.deleteMedium(medium.id);
      await expect(client.getMedium(medium.id)).rejects.toMatchObject({ status: 404 });
    } finally {
      await client.close();
    }
  });
});
