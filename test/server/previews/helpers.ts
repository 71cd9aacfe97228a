import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll } from 'vitest';
import { makeFixtures } from '../../../fixtures/make-fixtures.mjs';

type Fixtures = Awaited<ReturnType<typeof makeFixtures>>;

/**
 * The generated fixtures and a scratch directory for previews, made before the file's tests and
 * removed after them. `out('name')` is a fresh preview path in the scratch directory.
 */
export function previewSetup() {
  const ctx = { fx: undefined as unknown as Fixtures, dir: '', n: 0 };
  beforeAll(async () => {
    ctx.fx = await makeFixtures();
    ctx.dir = await mkdtemp(join(tmpdir(), 'roster-previews-'));
  });
  afterAll(() => rm(ctx.dir, { recursive: true, force: true }));
  return {
    get paths() {
      return ctx.fx.paths;
    },
    get ffmpeg() {
      return ctx.fx.ffmpeg;
    },
    get dir() {
      return ctx.dir;
    },
    out: (name = 'preview') => join(ctx.dir, `${name}-${++ctx.n}.jpg`),
  };
}

/** The preview really is a JPEG of these dimensions, and not one flat colour. */
export async function expectPicture(path: string) {
  const image = sharp(path);
  const [meta, stats] = await Promise.all([image.metadata(), image.stats()]);
  const flat = stats.channels.every((c) => c.min === c.max);
  return { format: meta.format, width: meta.width, height: meta.height, flat, stats };
}
