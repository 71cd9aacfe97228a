import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAKE, makePhotos, SERIAL } from '../../../fixtures/avatars/make.mjs';
import { makeAvatar, PhotoError } from '../../../src/cli/avatar/index.js';
import { scratch } from '../../helpers/scratch.js';
import { BODY_SERIAL_NUMBER, exifTags, GPS_IFD, GPS_LATITUDE } from './exif.js';

const dirs = scratch();
afterAll(dirs.cleanup);

let paths: Awaited<ReturnType<typeof makePhotos>>['paths'];
let out: string;
beforeAll(async () => {
  paths = (await makePhotos()).paths;
  out = dirs.temp('avatar-pipeline-');
}, 60_000);

/** The RGB of the pixel at (x, y). */
async function pixel(path: string, x: number, y: number) {
  const { data, info } = await sharp(path).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}
const isRed = ([r, g, b]: number[]) => r! > 200 && g! < 60 && b! < 60;

describe('a phone photo (EXIF orientation 6, GPS, camera serial)', () => {
  test('the fixture really carries them', async () => {
    const meta = await sharp(paths.phone).metadata();
    expect(meta.orientation).toBe(6);
    const tags = exifTags(meta.exif!);
    expect(tags.has(GPS_IFD) && tags.has(GPS_LATITUDE) && tags.has(BODY_SERIAL_NUMBER)).toBe(true);
  });

  test('is turned upright first, scaled to 2048 on the long edge, and leaves no metadata', async () => {
    const { hash, images } = await makeAvatar(paths.phone, out);
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    // Stored 3000×2250 and rotated 90° clockwise to show: portrait.
    expect([images.original.width, images.original.height]).toEqual([1536, 2048]);
    // The stored top-left red block is at the top-right once upright.
    expect(isRed(await pixel(images.original.path, 1536 - 10, 10))).toBe(true);
    expect(isRed(await pixel(images.original.path, 10, 10))).toBe(false);
    for (const image of Object.values(images)) {
      const meta = await sharp(image.path).metadata();
      expect(meta.format).toBe('jpeg');
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(meta.iptc).toBeUndefined();
      expect(meta.icc).toBeUndefined();
      expect(meta.orientation).toBeUndefined();
      const bytes = readFileSync(image.path).toString('latin1');
      expect(bytes).not.toContain(SERIAL);
      expect(bytes).not.toContain(MAKE);
      expect(image.fileName).toBe(`avatar.${hash}.${image.name}.jpg`);
      expect(image.bytes).toBe(readFileSync(image.path).length);
    }
    expect([images.thumb.width, images.thumb.height]).toEqual([200, 200]);
    expect([images.icon.width, images.icon.height]).toEqual([48, 48]);
  });
});

test('a small photo is never enlarged; thumb and icon are still square', async () => {
  const { images } = await makeAvatar(paths.small, out);
  expect([images.original.width, images.original.height]).toEqual([640, 480]);
  expect([images.thumb.width, images.thumb.height]).toEqual([200, 200]);
  expect([images.icon.width, images.icon.height]).toEqual([48, 48]);
});

test('a CMYK JPEG comes out as sRGB', async () => {
  const { images } = await makeAvatar(paths.cmyk, out);
  const meta = await sharp(images.original.path).metadata();
  expect([meta.space, meta.channels]).toEqual(['srgb', 3]);
  expect(isRed(await pixel(images.original.path, 5, 5))).toBe(true);
});

test('a 16-bit PNG with transparency comes out as 8-bit PNGs that keep it', async () => {
  expect((await sharp(paths.png16).metadata()).depth).toBe('ushort');
  const { hash, images } = await makeAvatar(paths.png16, out);
  for (const image of Object.values(images)) {
    const meta = await sharp(image.path).metadata();
    expect([meta.format, meta.depth, meta.hasAlpha]).toEqual(['png', 'uchar', true]);
    expect(image.fileName).toBe(`avatar.${hash}.${image.name}.png`);
  }
  expect([images.original.width, images.original.height]).toEqual([600, 400]);
});

test.each(['small', 'gif'] as const)(
  '%s: an alpha channel without a transparent pixel gives JPEGs',
  async (key) => {
    const meta = await sharp(paths[key]).metadata();
    expect([meta.hasAlpha, (await sharp(paths[key]).stats()).isOpaque]).toEqual([true, true]);
    const dir = dirs.temp('avatar-opaque-');
    const { hash, images } = await makeAvatar(paths[key], dir);
    for (const image of Object.values(images)) {
      expect((await sharp(image.path).metadata()).format).toBe('jpeg');
      expect(image.fileName).toBe(`avatar.${hash}.${image.name}.jpg`);
    }
    // Nothing but the three images is left in the folder (no PNG it went through first).
    expect(readdirSync(dir).sort()).toEqual(
      Object.values(images)
        .map((i) => i.fileName)
        .sort(),
    );
  },
);

test('an animated GIF gives its first frame', async () => {
  const { images } = await makeAvatar(paths.gif, out);
  expect([images.original.width, images.original.height]).toEqual([80, 60]);
  expect(isRed(await pixel(images.original.path, 40, 30))).toBe(true);
});

test.each(['webp', 'tiff'] as const)('%s is read', async (key) => {
  const { images } = await makeAvatar(paths[key], out);
  expect([images.original.width, images.original.height]).toEqual([400, 300]);
});

test('BMP is decoded by ffmpeg', async ({ skip }) => {
  if (!paths.bmp) skip('ffmpeg is not installed');
  const { images } = await makeAvatar(paths.bmp!, out);
  expect([images.original.width, images.original.height]).toEqual([96, 64]);
  expect(isRed(await pixel(images.original.path, 3, 3))).toBe(true);
});

test('HEIC is decoded by heif-convert', async ({ skip }) => {
  if (!paths.heic) skip('heif-enc is not installed');
  const { images } = await makeAvatar(paths.heic!, out);
  expect([images.original.width, images.original.height]).toEqual([320, 240]);
  expect((await sharp(images.original.path).metadata()).exif).toBeUndefined();
});

test('HEIC without heif-convert: a per-file error that says what to install', async ({ skip }) => {
  if (!paths.heic) skip('heif-enc is not installed');
  const env = { PATH: '/nonexistent' };
  const err = await makeAvatar(paths.heic!, out, { env }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PhotoError);
  expect((err as PhotoError).problem).toBe('no-decoder');
  expect((err as PhotoError).message).toContain(paths.heic!);
  expect((err as PhotoError).message).toContain('heif-convert');
});

test('the same photo always gives the same names; another photo other names', async () => {
  const a = await makeAvatar(paths.small, out);
  const b = await makeAvatar(paths.small, out);
  const c = await makeAvatar(paths.webp, out);
  expect(a.images.thumb.fileName).toBe(b.images.thumb.fileName);
  expect(c.hash).not.toBe(a.hash);
});

describe('bad input: a PhotoError naming the file', () => {
  test.each([
    ['bomb', 'too-many-pixels', 'megapixels'],
    ['truncated', 'broken', 'truncated'],
    ['empty', 'empty', 'is empty'],
    ['text', 'not-an-image', 'is not an image'],
    ['huge', 'too-large', '200 MiB'],
  ] as const)('%s', async (key, problem, words) => {
    const err = await makeAvatar(paths[key], out).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PhotoError);
    expect((err as PhotoError).problem).toBe(problem);
    expect((err as PhotoError).message).toContain(paths[key]);
    expect((err as PhotoError).message).toContain(words);
  });

  test('a missing file', async () => {
    const err = await makeAvatar(join(out, 'nope.jpg'), out).catch((e: unknown) => e);
    expect((err as PhotoError).message).toContain('ENOENT');
  });
});
