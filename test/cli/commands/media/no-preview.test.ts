/**
 * A medium of a type that gets previews but has none says why, in-process against a real
 * server: the upload names the file and the service's reason (#44 item 15), and
 * `media download --preview` blames what stopped the preview, not the file's type.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';
import { scratch } from '../../../helpers/scratch.js';
import { fixtures } from '../../../server/media/media-helpers.js';

const FIXTURES_SCRIPT = new URL('../../../../fixtures/make-fixtures.mjs', import.meta.url).href;

const dirs = scratch();
let srv: CliServed;
let dir: string;
beforeAll(async () => {
  srv = await startCliServed();
  dir = dirs.temp('roster-no-preview-');
});
afterAll(async () => {
  await srv.close();
  await dirs.cleanup();
});

test('a truncated JPEG is uploaded with a word that it has no preview, and why', async () => {
  const whole = readFileSync((await fixtures()).exifJpeg);
  const cut = join(dir, 'cut.jpg');
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
  const r = await srv.run(['media', 'upload', cut, '-o', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toMatch(
    /uploaded .*cut\.jpg → \w+ \(image, .*\), no preview \(the image is truncated\)/,
  );
  const [medium] = JSON.parse(r.stdout);
  expect(medium.transformations).toBeUndefined();
  expect(medium.previewError).toBe('the image is truncated');
});

test('media download --preview of a 50000×50000 PNG names the pixel limit, not the type', async () => {
  const { pixelBombPng } = (await import(FIXTURES_SCRIPT)) as {
    pixelBombPng(side: number): Promise<Buffer>;
  };
  const bomb = join(dir, 'bomb.png');
  writeFileSync(bomb, await pixelBombPng(50000));
  const up = await srv.run(['media', 'upload', bomb, '-o', 'json']);
  expect(up.exitCode, up.stderr).toBe(0);
  expect(up.stderr).toContain(
    'no preview (the image has 2500 megapixels; previews are made up to 100)',
  );
  const [{ id }] = JSON.parse(up.stdout);
  const r = await srv.run(['media', 'download', id, '--preview', '--to', join(dir, 'p.jpg')]);
  expect(r.exitCode).toBe(4);
  expect(r.stderr).toContain(
    `medium ${id} (bomb.png) has no preview: the image has 2500 megapixels; previews are made up to 100`,
  );
  expect(r.stderr).not.toContain('previews are made for images');
});
