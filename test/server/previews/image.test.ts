import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, test } from 'vitest';
import { describeAndPreview, sniffType } from '../../../src/server/previews/index.js';
import { expectPicture, previewSetup } from './helpers.js';

const s = previewSetup();
const TIMEOUT = 30_000;

async function inspect(path: string, previewPath: string, timeoutMs = TIMEOUT) {
  return describeAndPreview(path, await sniffType(path), { previewPath, timeoutMs });
}

const gone = (path: string) =>
  access(path).then(
    () => false,
    () => true,
  );

describe('image previews (sharp)', () => {
  test('a 640×480 PNG: its size, and a JPEG preview not enlarged', async () => {
    const out = s.out();
    const d = await inspect(s.paths.png, out);
    expect(d).toEqual({
      width: 640,
      height: 480,
      preview: {
        width: 640,
        height: 480,
        bytes: (await stat(out)).size,
        format: 'jpg',
        mimeType: 'image/jpeg',
      },
    });
    expect(await expectPicture(out)).toMatchObject({
      format: 'jpeg',
      width: 640,
      height: 480,
      flat: false,
    });
  });

  test('EXIF orientation 6: stored 400×300, described and previewed upright as 300×400', async () => {
    const out = s.out();
    const d = await inspect(s.paths.exifJpeg, out);
    expect(d).toMatchObject({ width: 300, height: 400, preview: { width: 300, height: 400 } });
    const meta = await sharp(out).metadata();
    expect([meta.width, meta.height, meta.orientation ?? 1]).toEqual([300, 400, 1]);
  });

  test('a large image fits inside 800×800, aspect kept', async () => {
    const big = join(s.dir, 'wide.png');
    await sharp({ create: { width: 2400, height: 1200, channels: 3, background: '#336699' } })
      .png()
      .toFile(big);
    const d = await inspect(big, s.out());
    expect(d).toMatchObject({ width: 2400, height: 1200, preview: { width: 800, height: 400 } });
  });

  test('transparency is flattened onto white (a JPEG has no alpha)', async () => {
    const clear = join(s.dir, 'clear.png');
    await sharp({ create: { width: 50, height: 50, channels: 4, background: '#00000000' } })
      .png()
      .toFile(clear);
    const out = s.out();
    await inspect(clear, out);
    const { stats } = await expectPicture(out);
    expect(stats.channels.map((c) => c.min)).toEqual([255, 255, 255]);
  });

  test('a truncated PNG: size from its header, no preview and why, no throw', async () => {
    const out = s.out();
    expect(await inspect(s.paths.corruptPng, out)).toEqual({
      width: 640,
      height: 480,
      noPreview: 'the image could not be decoded (vipspng: libpng read error)',
    });
  });

  test('a 900-megapixel bomb: size from its header, no preview, refused at once', async () => {
    const out = s.out();
    expect(await inspect(s.paths.pixelBomb, out)).toEqual({
      width: 30000,
      height: 30000,
      noPreview: 'the image has 900 megapixels; previews are made up to 100',
    });
    expect(await gone(out)).toBe(true);
  });

  test('an SVG (with a script) is never rasterised', async () => {
    const out = s.out();
    expect(await inspect(s.paths.svg, out)).toEqual({});
    expect(await gone(out)).toBe(true);
  });

  test('an SVG cannot reach the file loader even when mis-sniffed as a raster image', async () => {
    const d = describeAndPreview(
      s.paths.svg,
      { type: 'image', mimeType: 'image/png', format: 'png' },
      { previewPath: s.out(), timeoutMs: TIMEOUT },
    );
    await expect(d).rejects.toThrow(/unsupported image format/);
  });

  test('zero bytes and text are raw: nothing to describe', async () => {
    for (const path of [s.paths.empty, s.paths.text]) {
      expect(await inspect(path, s.out())).toEqual({});
    }
  });
});
