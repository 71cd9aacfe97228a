/**
 * Photo metadata (EXIF GPS, serial numbers, XMP) never becomes an avatar: a serve refuses an
 * avatar whose media carry any, and `serve --strip-metadata` (stripMetadata) re-encodes every
 * image upload without it. Without the flag an upload is stored byte for byte. Runs on S3 too:
 * the avatar check reads media through the BlobStore, the strip stores through it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from '../../helpers/database.js';
import { jsonBody, startServer, type TestServer, V3 } from '../../helpers/server.js';
import { upload } from './media-helpers.js';
import {
  clean,
  heicWithMetadata,
  heifEncAvailable,
  leaks,
  rotated,
  SERIAL,
  withMetadata,
  withXmpOnly,
} from './metadata-photos.js';

let plain: TestServer;
let stripping: TestServer;
beforeAll(async () => {
  [plain, stripping] = await Promise.all([startServer(), startServer({ stripMetadata: true })]);
});
afterAll(() => Promise.all([plain?.close(), stripping?.close()]));

const IMAGES = ['original', 'thumb', 'icon'] as const;

async function uploaded(s: TestServer, bytes: Buffer, name: string) {
  const r = await upload(s, bytes, name);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json;
}

/** A user whose avatar is `media` (one medium for all three images, or one each). */
async function setAvatar(s: TestServer, media: { resourceInfo: { url: string } }[]) {
  const u = await s.req('POST', '/api/users', jsonBody({ email: `${Math.random()}@x.example` }));
  expect(u.status).toBe(201);
  const avatar = Object.fromEntries(
    IMAGES.map((name, i) => [name, { url: (media[i] ?? media[0]!).resourceInfo.url }]),
  );
  const put = await s.req('PUT', `/api/users/${u.json.id}`, jsonBody({ profile: { avatar } }));
  return { id: u.json.id as string, put };
}

const served = async (url: string) => {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
};

describe('an avatar made of media that carry metadata', () => {
  test.each([
    ['phone.jpg', 'jpeg'],
    ['phone.png', 'png'],
    ['phone.webp', 'webp'],
  ] as const)(
    '%s (EXIF GPS and serial): 400 naming each image, what it carries and the fix; nothing stored',
    async (name, format) => {
      const bytes = await withMetadata(format);
      expect(await leaks(bytes)).toEqual(expect.arrayContaining(['exif', 'xmp', 'serial']));
      const medium = await uploaded(plain, bytes, name);
      const { id, put } = await setAvatar(plain, [medium]);
      expect(put.status).toBe(400);
      expect(put.json.details).toEqual(
        IMAGES.map((image) => ({
          field: `profile.avatar.${image}.url`,
          message: expect.stringContaining('EXIF (GPS position, camera serial number), XMP'),
        })),
      );
      expect(put.json.details[0].message).toContain('roster users avatar set');
      expect(put.json.details[0].message).toContain('--strip-metadata');
      const read = await plain.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
      expect(read.json.profile.avatar).toBeNull();
    },
  );

  test('XMP alone is named, its GPS position too', async () => {
    const medium = await uploaded(plain, await withXmpOnly(), 'edited.jpg');
    const { put } = await setAvatar(plain, [medium]);
    expect(put.status).toBe(400);
    expect(put.json.details[0].message).toContain('carries XMP (GPS position)');
  });

  test('a TIFF or HEIC is refused as an avatar: not an image format browsers show', async () => {
    const media = [await uploaded(plain, await withMetadata('tiff'), 'scan.tiff')];
    if (heifEncAvailable) media.push(await uploaded(plain, await heicWithMetadata(), 'IMG_1.HEIC'));
    for (const medium of media) {
      const { put } = await setAvatar(plain, [medium]);
      expect(put.status).toBe(400);
      expect(put.json.details[0].message).toMatch(
        /its medium is image\/(tiff|heic); an avatar image is a JPEG, PNG or WebP/,
      );
    }
  });

  test('the same pictures without metadata are taken (JPEG, PNG, WebP as sharp writes them)', async () => {
    const media = [];
    for (const format of ['jpeg', 'png', 'webp'] as const) {
      media.push(await uploaded(plain, await clean(format), `avatar.${format}`));
    }
    const { put } = await setAvatar(plain, media);
    expect(put.status, JSON.stringify(put.json)).toBe(200);
  });

  test('an avatar stored before the check is no reason to refuse an edit that sends it back unchanged', async () => {
    const medium = await uploaded(plain, await withMetadata('jpeg'), 'old.jpg');
    const clean1 = await uploaded(plain, await clean('jpeg'), 'new.jpg');
    const u = await plain.req('POST', '/api/users', jsonBody({ email: 'legacy@x.example' }));
    const link = { url: `medium:${medium.id}` };
    const stored = JSON.stringify({ original: link, thumb: link, icon: link });
    await sql(plain.store, 'UPDATE users SET avatar = ? WHERE id = ?', stored, u.json.id);
    const read = await plain.req('GET', `/api/users/${u.json.id}`, { headers: { accept: V3 } });
    const avatar = Object.fromEntries(
      IMAGES.map((name) => [name, { url: read.json.profile.avatar[name].url }]),
    );
    // A client that reads the user, edits a field and writes the avatar's URLs back with it.
    const edit = { profile: { avatar, firstName: 'Lee' } };
    const put = await plain.req('PUT', `/api/users/${u.json.id}`, jsonBody(edit));
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    // A new image is checked, though: the old medium given in a slot it had is fine, a swap to
    // another medium with metadata is not.
    const other = await uploaded(plain, await withMetadata('png'), 'other.png');
    const swap = { ...avatar, icon: { url: other.resourceInfo.url } };
    const refused = await plain.req(
      'PUT',
      `/api/users/${u.json.id}`,
      jsonBody({ profile: { avatar: swap } }),
    );
    expect(refused.status).toBe(400);
    expect(refused.json.details.map((d: { field: string }) => d.field)).toEqual([
      'profile.avatar.icon.url',
    ]);
    const fixed = { ...avatar, icon: { url: clean1.resourceInfo.url } };
    const ok = await plain.req(
      'PUT',
      `/api/users/${u.json.id}`,
      jsonBody({ profile: { avatar: fixed } }),
    );
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
  });

  test('without --strip-metadata an upload is stored and served byte for byte, metadata and all', async () => {
    const bytes = await withMetadata('jpeg');
    const medium = await uploaded(plain, bytes, 'phone.jpg');
    expect(medium.resourceInfo.bytes).toBe(bytes.length);
    expect((await served(medium.resourceInfo.url)).equals(bytes)).toBe(true);
  });
});

describe('serve --strip-metadata', () => {
  const formats = [
    ['phone.jpg', () => withMetadata('jpeg'), 'image/jpeg'],
    ['phone.png', () => withMetadata('png'), 'image/png'],
    ['phone.webp', () => withMetadata('webp'), 'image/webp'],
    ['phone.avif', () => withMetadata('avif'), 'image/avif'],
    ['scan.tiff', () => withMetadata('tiff'), 'image/tiff'],
  ] as const;

  test.each(formats)(
    '%s is stored without EXIF, XMP, GPS or serial, in its format, the same picture',
    async (name, make, mimeType) => {
      const bytes = await make();
      expect((await leaks(bytes)).length).toBeGreaterThan(0);
      const medium = await uploaded(stripping, bytes, name);
      expect(medium.resourceInfo).toMatchObject({ mimeType, width: 96, height: 64 });
      const stored = await served(medium.resourceInfo.url);
      expect(stored.length).toBe(medium.resourceInfo.bytes);
      expect(await leaks(stored)).toEqual([]);
      // Still the picture: red on the left, blue on the right.
      const { data } = await sharp(stored)
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect(data[0]).toBeGreaterThan(200);
      expect(data[(96 - 1) * 3 + 2]).toBeGreaterThan(150);
    },
  );

  test('a photo stored on its side is turned upright first (its orientation was EXIF too)', async () => {
    const medium = await uploaded(stripping, await rotated(), 'side.jpg');
    expect(medium.resourceInfo).toMatchObject({ width: 64, height: 96 });
    const stored = await served(medium.resourceInfo.url);
    expect(await leaks(stored)).toEqual([]);
    expect((await sharp(stored).metadata()).orientation).toBeUndefined();
  });

  test.runIf(heifEncAvailable)(
    'a HEIC is stored as a JPEG without its metadata, named .jpg',
    async () => {
      const medium = await uploaded(stripping, await heicWithMetadata(), 'IMG_1.HEIC');
      expect(medium.resourceInfo).toMatchObject({ mimeType: 'image/jpeg', format: 'jpg' });
      expect(medium.publicID).toMatch(/\/IMG_1\.jpg$/);
      expect(await leaks(await served(medium.resourceInfo.url))).toEqual([]);
    },
  );

  test.runIf(heifEncAvailable)(
    'without heif-convert a HEIC is refused (415) naming what is missing',
    async () => {
      const before = process.env.HEIF_CONVERT_PATH;
      process.env.HEIF_CONVERT_PATH = join(stripping.dataDir, 'no-such-heif-convert');
      try {
        const r = await upload(stripping, await heicWithMetadata(), 'IMG_2.HEIC');
        expect(r.status, JSON.stringify(r.json)).toBe(415);
        expect(r.json.message).toContain(
          'heif-convert (libheif-examples), which this server lacks',
        );
      } finally {
        if (before === undefined) delete process.env.HEIF_CONVERT_PATH;
        else process.env.HEIF_CONVERT_PATH = before;
      }
    },
  );

  test('an animated GIF keeps its frames', async () => {
    const frame = (background: string) =>
      sharp({ create: { width: 20, height: 10, channels: 3, background } })
        .png()
        .toBuffer();
    const gif = await sharp([await frame('#f00'), await frame('#00f')], {
      join: { animated: true },
    })
      .gif()
      .toBuffer();
    const medium = await uploaded(stripping, gif, 'wave.gif');
    const stored = await sharp(await served(medium.resourceInfo.url)).metadata();
    expect(stored).toMatchObject({ format: 'gif', pages: 2, width: 20 });
  });

  test('the stripped upload is taken as an avatar, and every avatar URL serves no GPS or serial', async () => {
    const medium = await uploaded(stripping, await withMetadata('jpeg'), 'phone.jpg');
    const { put } = await setAvatar(stripping, [medium]);
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    for (const image of IMAGES) {
      const bytes = await served(put.json.profile.avatar[image].url);
      expect(await leaks(bytes)).toEqual([]);
      expect(bytes.includes(SERIAL)).toBe(false);
    }
  });

  test('an image it cannot decode is refused (400), never stored with what it carries', async () => {
    const header = (await withMetadata('jpeg')).subarray(0, 600);
    const broken = Buffer.concat([header, Buffer.alloc(400, 0x55)]);
    const before = (await stripping.req('GET', '/api/media')).json.total;
    const r = await upload(stripping, broken, 'broken.jpg');
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/could not be re-encoded to strip its metadata/);
    expect((await stripping.req('GET', '/api/media')).json.total).toBe(before);
  });

  test('an image kind it cannot write again (JPEG XL here) is refused with 415, not stored', async () => {
    const jxl = Buffer.concat([Buffer.from([0xff, 0x0a]), Buffer.alloc(64, 0x11)]);
    const r = await upload(stripping, jxl, 'photo.jxl');
    expect(r.status, JSON.stringify(r.json)).toBe(415);
    expect(r.json.message).toContain('image/jxl cannot be written again without its metadata');
  });

  test('an image that carries nothing is kept byte for byte (no second compression)', async () => {
    for (const format of ['jpeg', 'png', 'webp'] as const) {
      const bytes = await clean(format);
      const medium = await uploaded(stripping, bytes, `avatar.${format}`);
      expect((await served(medium.resourceInfo.url)).equals(bytes)).toBe(true);
    }
  });

  test('no temp file or decode dir stays behind, stripped, refused or kept', () => {
    expect(readdirSync(join(stripping.dataDir, 'media', 'tmp'))).toEqual([]);
  });

  test('what is no raster image is stored as sent (a text file, an SVG)', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>');
    for (const [bytes, name] of [
      [Buffer.from('name,email\n'), 'list.csv'],
      [svg, 'logo.svg'],
    ] as const) {
      const medium = await uploaded(stripping, bytes, name);
      expect((await served(medium.resourceInfo.url)).equals(bytes)).toBe(true);
    }
  });
});
