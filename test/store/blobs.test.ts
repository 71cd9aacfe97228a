import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { BlobStore } from '../../src/store/blobs/blob-store.js';
import { localBlobStore } from '../../src/store/blobs/local.js';

let dataDir: string;
let blobs: BlobStore;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'roster-blobs-'));
  blobs = localBlobStore(dataDir);
  await blobs.sweepTemp(); // what start-up does: creates the directories
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes `content` to a fresh temp file and stores it under `key`. */
async function putText(key: string, content: string) {
  const temp = blobs.tempPath();
  await writeFile(temp, content);
  await blobs.put(key, temp);
  return temp;
}

describe('localBlobStore', () => {
  test('put moves the temp file into place; stat, get and get with a range read it', async () => {
    const temp = await putText('65f0c0ffee00000000000001', 'hello, blob store');
    expect(dirname(temp)).toBe(join(dataDir, 'media', 'tmp'));
    await expect(stat(temp)).rejects.toThrow(/ENOENT/);
    // Sharded by the key's last two characters.
    const onDisk = join(dataDir, 'media', 'files', '01', '65f0c0ffee00000000000001');
    expect(await readFile(onDisk, 'utf8')).toBe('hello, blob store');

    expect(await blobs.stat('65f0c0ffee00000000000001')).toEqual({ size: 17 });
    expect(await text(await blobs.get('65f0c0ffee00000000000001'))).toBe('hello, blob store');
    // Inclusive, as HTTP ranges are.
    const range = { start: 7, end: 10 };
    expect(await text(await blobs.get('65f0c0ffee00000000000001', range))).toBe('blob');
  });

  test('begin: the bytes go to a local file first, and show under the key at commit', async () => {
    const write = blobs.begin('65f0c0ffee00000000000002');
    expect(dirname(write.localPath)).toBe(join(dataDir, 'media', 'tmp'));
    await pipeline(
      Readable.from([Buffer.from('streamed, '), Buffer.from('then kept')]),
      write.sink,
    );
    // Previews read the local copy before the store is asked to keep it.
    expect(await readFile(write.localPath, 'utf8')).toBe('streamed, then kept');
    expect(await blobs.stat('65f0c0ffee00000000000002')).toBeUndefined();
    await write.commit();
    expect(await text(await blobs.get('65f0c0ffee00000000000002'))).toBe('streamed, then kept');
    expect(await readdir(join(dataDir, 'media', 'tmp'))).toEqual([]);
  });

  test('begin: abort, mid-body or after it, leaves nothing behind', async () => {
    const midway = blobs.begin('k2');
    midway.sink.write('half a body');
    await midway.abort();
    const whole = blobs.begin('k3');
    await pipeline(Readable.from([Buffer.from('a whole body')]), whole.sink);
    await whole.abort();
    expect(await readdir(join(dataDir, 'media', 'tmp'))).toEqual([]);
    expect(await blobs.stat('k2')).toBeUndefined();
    expect(await blobs.stat('k3')).toBeUndefined();
  });

  test('a put under an existing key replaces it', async () => {
    await putText('k1', 'first');
    await putText('k1', 'second');
    expect(await text(await blobs.get('k1'))).toBe('second');
  });

  test('delete removes; a second delete, stat and get of a missing key behave', async () => {
    await putText('gone.preview', 'x');
    await blobs.delete('gone.preview');
    await blobs.delete('gone.preview');
    expect(await blobs.stat('gone.preview')).toBeUndefined();
    await expect(blobs.get('gone.preview')).rejects.toThrow(/ENOENT/);
  });

  test.each([
    '../escape',
    '../../etc/passwd',
    '/etc/passwd',
    'a/b',
    'a\\b',
    'nul\u0000byte',
    '.hidden',
    '..',
    '',
    'x'.repeat(129),
  ])('key %j is refused by every operation', async (key) => {
    const temp = blobs.tempPath();
    await writeFile(temp, 'x');
    await expect(blobs.put(key, temp)).rejects.toThrow(/invalid blob key/);
    expect(() => blobs.begin(key)).toThrow(/invalid blob key/);
    await expect(blobs.get(key)).rejects.toThrow(/invalid blob key/);
    await expect(blobs.stat(key)).rejects.toThrow(/invalid blob key/);
    await expect(blobs.delete(key)).rejects.toThrow(/invalid blob key/);
    // Nothing was written outside (or inside) the store.
    expect(await readdir(join(dataDir, 'media', 'files'))).toEqual([]);
    expect(await readdir(dataDir)).toEqual(['media']);
  });

  test('keys lists every stored key, not temp files', async () => {
    for (const key of ['aa01', 'bb02', 'cc02', 'dd99.preview']) await putText(key, key);
    await writeFile(blobs.tempPath(), 'in flight');
    const keys: string[] = [];
    for await (const key of blobs.keys()) keys.push(key);
    expect(keys.sort()).toEqual(['aa01', 'bb02', 'cc02', 'dd99.preview']);
  });

  test('sweepTemp removes leftovers from a crash and leaves stored files alone', async () => {
    await putText('kept', 'stored');
    await writeFile(blobs.tempPath(), 'half an upload');
    await writeFile(blobs.tempPath(), 'a preview nobody stored');
    expect(await blobs.sweepTemp()).toBe(2);
    expect(await readdir(join(dataDir, 'media', 'tmp'))).toEqual([]);
    expect(await blobs.sweepTemp()).toBe(0);
    expect(await text(await blobs.get('kept'))).toBe('stored');
  });

  test('discardTemp removes a temp file, quietly when it is already gone', async () => {
    const temp = blobs.tempPath();
    await writeFile(temp, 'x');
    await blobs.discardTemp(temp);
    await blobs.discardTemp(temp);
    await expect(stat(temp)).rejects.toThrow(/ENOENT/);
  });

  test('temp paths are unique', () => {
    const paths = new Set(Array.from({ length: 1000 }, () => blobs.tempPath()));
    expect(paths.size).toBe(1000);
  });
});
