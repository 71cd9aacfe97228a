import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { sniffType } from '../../../src/server/previews/index.js';
import { previewSetup } from './helpers.js';

const s = previewSetup();

describe('sniffType: the bytes decide, never the name', () => {
  test.each([
    ['png', { type: 'image', mimeType: 'image/png', format: 'png' }],
    ['exifJpeg', { type: 'image', mimeType: 'image/jpeg', format: 'jpg' }],
    ['pdf', { type: 'pdf', mimeType: 'application/pdf', format: 'pdf' }],
    ['corruptPng', { type: 'image', mimeType: 'image/png', format: 'png' }],
    ['pixelBomb', { type: 'image', mimeType: 'image/png', format: 'png' }],
    ['svg', { type: 'image', mimeType: 'image/svg+xml', format: 'svg' }],
    ['text', { type: 'raw', mimeType: 'text/plain', format: 'txt' }],
    ['empty', { type: 'raw', mimeType: 'application/octet-stream', format: '' }],
  ] as const)('%s', async (key, kind) => {
    expect(await sniffType(s.paths[key])).toEqual(kind);
  });

  test('an MP4 is a video', async () => {
    expect(s.paths.mp4, 'ffmpeg is needed to make the MP4 fixture').not.toBeNull();
    expect(await sniffType(s.paths.mp4!)).toEqual({
      type: 'video',
      mimeType: 'video/mp4',
      format: 'mp4',
    });
  });

  test('a PNG named .pdf is a PNG; markup without magic bytes is looked at as text', async () => {
    const named = join(s.dir, 'looks-like.pdf');
    await writeFile(named, await readFile(s.paths.png));
    expect((await sniffType(named)).mimeType).toBe('image/png');

    const cases: [string, string][] = [
      ['\uFEFF<?xml version="1.0"?>\n<!-- c -->\n<svg xmlns="x"/>', 'image/svg+xml'],
      ['<!DOCTYPE html><html><script>x</script></html>', 'text/html'],
      ['<?xml version="1.0"?><note/>', 'application/xml'],
      ['plain words, ünïcödé', 'text/plain'],
    ];
    for (const [text, mimeType] of cases) {
      const path = join(s.dir, 'markup');
      await writeFile(path, text);
      expect((await sniffType(path)).mimeType, text).toBe(mimeType);
    }
    const binary = join(s.dir, 'binary');
    await writeFile(binary, Buffer.from([0x00, 0xff, 0x10, 0x80, 0x00]));
    expect(await sniffType(binary)).toEqual({
      type: 'raw',
      mimeType: 'application/octet-stream',
      format: '',
    });
  });
});
