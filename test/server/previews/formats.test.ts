/**
 * Media the phones and scanners produce (issue 13 §4): anamorphic and one-frame videos, BMP and
 * ICO (which sharp cannot read), HEIC (HEVC, which sharp's libvips cannot decode). Real files,
 * sniffed from their bytes as an upload is.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { describeAndPreview, sniffType } from '../../../src/server/previews/index.js';
import { fromProbe } from '../../../src/server/previews/video.js';
import { expectPicture, previewSetup } from './helpers.js';

const s = previewSetup();

async function describeFile(path: string | null, name: string) {
  expect(path, `${name}: ffmpeg must be on PATH (apt-get install ffmpeg)`).not.toBeNull();
  const out = s.out(name);
  const kind = await sniffType(path!);
  const described = await describeAndPreview(path!, kind, { previewPath: out, timeoutMs: 30_000 });
  return { kind, described, out };
}

describe('videos', () => {
  test('an anamorphic video (720×576, SAR 64:45) reports its display size and previews at it', async () => {
    const { described, out } = await describeFile(s.paths.anamorphic, 'anamorphic');
    expect(described).toMatchObject({ width: 1024, height: 576 });
    expect(described.preview).toMatchObject({ width: 800, height: 450 });
    expect(await expectPicture(out)).toMatchObject({ width: 800, height: 450, flat: false });
  });

  test('display size: SAR stretches the width, then a 90° rotation swaps; unknown SAR is square', () => {
    const stream = { codec_type: 'video', width: 720, height: 576 };
    const turned = { ...stream, sample_aspect_ratio: '64:45', side_data_list: [{ rotation: -90 }] };
    expect(fromProbe({ streams: [turned] })).toMatchObject({ width: 576, height: 1024 });
    for (const sar of ['0:1', 'N/A', '1:1', undefined]) {
      const probe = { streams: [{ ...stream, sample_aspect_ratio: sar }] };
      expect(fromProbe(probe), String(sar)).toMatchObject({ width: 720, height: 576 });
    }
  });

  test('a one-frame video gets its only frame as preview', async () => {
    const { described, out } = await describeFile(s.paths.oneFrame, 'one-frame');
    expect(described).toMatchObject({ width: 320, height: 240 });
    expect(described.preview).toMatchObject({ width: 320, height: 240 });
    expect(await expectPicture(out)).toMatchObject({ format: 'jpeg', flat: false });
  });
});

describe('images sharp cannot read, decoded by ffmpeg', () => {
  test('BMP: width, height and a preview', async () => {
    const { kind, described, out } = await describeFile(s.paths.bmp, 'bmp');
    expect(kind.mimeType).toBe('image/bmp');
    expect(described).toMatchObject({ width: 96, height: 64, preview: { width: 96, height: 64 } });
    expect(await expectPicture(out)).toMatchObject({ format: 'jpeg', flat: false });
  });

  test('ICO: width, height and a preview', async () => {
    const { kind, described, out } = await describeFile(s.paths.ico, 'ico');
    expect(kind.mimeType).toBe('image/x-icon');
    expect(described).toMatchObject({ width: 48, height: 32, preview: { width: 48, height: 32 } });
    expect(await expectPicture(out)).toMatchObject({ format: 'jpeg', flat: false });
  });
});

const heifConvert =
  spawnSync(process.env.HEIF_CONVERT_PATH || 'heif-convert', ['--version'], { stdio: 'ignore' })
    .status === 0;
const requireHeif = process.env.CI === 'true';
if (!heifConvert && !requireHeif) {
  process.stderr.write(
    'skipping HEIC previews: install heif-convert (apt-get install libheif-examples)\n',
  );
}

describe.runIf(heifConvert || requireHeif)('HEIC, decoded by heif-convert', () => {
  test('an HEVC HEIC: width, height and a preview', async () => {
    expect(heifConvert, 'heif-convert must be on PATH (apt-get install libheif-examples)').toBe(
      true,
    );
    expect(s.paths.heic, 'heif-enc makes the fixture (libheif-examples)').not.toBeNull();
    const out = s.out('heic');
    const kind = await sniffType(s.paths.heic!);
    expect(kind.mimeType).toBe('image/heic');
    const described = await describeAndPreview(s.paths.heic!, kind, {
      previewPath: out,
      timeoutMs: 30_000,
    });
    expect(described).toMatchObject({
      width: 320,
      height: 240,
      preview: { width: 320, height: 240 },
    });
    expect(await expectPicture(out)).toMatchObject({ format: 'jpeg', flat: false });
  });
});
