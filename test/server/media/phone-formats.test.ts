/** Uploads of what phones and scanners produce, through the real API: sizes and previews. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeFixtures } from '../../../fixtures/make-fixtures.mjs';
import { startServer, type TestServer } from '../../helpers/server.js';
import { upload } from './media-helpers.js';

let s: TestServer;
let paths: Awaited<ReturnType<typeof makeFixtures>>['paths'];
beforeAll(async () => {
  paths = (await makeFixtures()).paths;
  s = await startServer();
});
afterAll(() => s.close());

const heif =
  spawnSync('heif-convert', ['--version'], { stdio: 'ignore' }).status === 0 ||
  process.env.CI === 'true';

async function put(path: string | null, name: string) {
  expect(path, `${name}: its fixture needs ffmpeg / heif-enc`).not.toBeNull();
  const r = await upload(s, readFileSync(path!), name);
  expect(r.status).toBe(200);
  return {
    info: r.json.resourceInfo,
    preview: r.json.transformations?.t_preview?.resourceInfo,
  };
}

describe('uploads the phones and scanners produce', () => {
  test.each([
    ['scan.bmp', 'bmp', 'image/bmp', 96, 64, 96, 64],
    ['favicon.ico', 'ico', 'image/x-icon', 48, 32, 48, 32],
    ['pal.mp4', 'anamorphic', 'video/mp4', 1024, 576, 800, 450],
    ['still.mp4', 'oneFrame', 'video/mp4', 320, 240, 320, 240],
    ...(heif ? [['IMG_0001.HEIC', 'heic', 'image/heic', 320, 240, 320, 240] as const] : []),
  ] as const)('%s: size and a preview', async (name, key, mimeType, w, h, pw, ph) => {
    const { info, preview } = await put(paths[key as keyof typeof paths], name);
    expect(info).toMatchObject({ mimeType, width: w, height: h });
    expect(preview).toMatchObject({ type: 'image', width: pw, height: ph });
  });
});
