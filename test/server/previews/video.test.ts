import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { describeAndPreview } from '../../../src/server/previews/index.js';
import { fromProbe } from '../../../src/server/previews/video.js';
import { expectPicture, previewSetup } from './helpers.js';

const s = previewSetup();
const MP4 = { type: 'video', mimeType: 'video/mp4', format: 'mp4' } as const;
const run = (path: string, previewPath: string, timeoutMs = 30_000) =>
  describeAndPreview(path, MP4, { previewPath, timeoutMs });

/** ffmpeg is a test requirement (CI installs it); without it these tests fail, not skip. */
function mp4(): string {
  expect(s.ffmpeg, 'ffmpeg/ffprobe must be on PATH (apt-get install ffmpeg)').toBe(true);
  return s.paths.mp4!;
}

const saved = { ...process.env };
afterEach(() => {
  process.env.FFMPEG_PATH = saved.FFMPEG_PATH;
  process.env.FFPROBE_PATH = saved.FFPROBE_PATH;
  if (saved.FFMPEG_PATH === undefined) delete process.env.FFMPEG_PATH;
  if (saved.FFPROBE_PATH === undefined) delete process.env.FFPROBE_PATH;
});

describe('video previews (ffprobe + ffmpeg)', () => {
  test('a 2 s 320×240 MP4: size, duration and a frame as JPEG', async () => {
    const out = s.out();
    const d = await run(mp4(), out);
    expect(d).toMatchObject({ width: 320, height: 240, preview: { width: 320, height: 240 } });
    expect(d.duration).toBeCloseTo(2, 1);
    expect(await expectPicture(out)).toMatchObject({ format: 'jpeg', width: 320, flat: false });
  });

  test('a truncated video keeps what its header says, without a preview', async () => {
    const cut = join(s.dir, 'cut.mp4');
    await writeFile(cut, (await readFile(mp4())).subarray(0, 3000));
    const out = s.out();
    const d = await run(cut, out);
    expect(d).toMatchObject({ width: 320, height: 240 });
    expect(d.preview).toBeUndefined();
  });

  test('garbage with a video signature rejects; nothing is written', async () => {
    const junk = join(s.dir, 'junk.mp4');
    const head = (await readFile(mp4())).subarray(0, 12);
    await writeFile(junk, Buffer.concat([head, Buffer.alloc(2000, 0x5a)]));
    const out = s.out();
    await expect(run(junk, out)).rejects.toThrow(/ffprobe failed/);
    await expect(access(out)).rejects.toThrow();
  });

  test('ffprobe missing (FFPROBE_PATH points nowhere): rejects, so no preview', async () => {
    mp4();
    process.env.FFPROBE_PATH = join(s.dir, 'no-such-ffprobe');
    await expect(run(s.paths.mp4!, s.out())).rejects.toThrow(/ffprobe failed/);
  });

  test('the deadline kills the tools', async () => {
    // An ffprobe that never answers: only the deadline can end it.
    const hang = join(s.dir, 'hanging-ffprobe');
    const pidFile = join(s.dir, 'hanging-ffprobe.pid');
    await writeFile(hang, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 600\n`, { mode: 0o755 });
    process.env.FFPROBE_PATH = hang;
    await expect(run(mp4(), s.out(), 500)).rejects.toThrow(/ffprobe failed/);
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });
});

describe('fromProbe', () => {
  test('a 90° display rotation swaps width and height; duration from the format', () => {
    expect(
      fromProbe({
        streams: [
          { codec_type: 'audio' },
          { codec_type: 'video', width: 1920, height: 1080, side_data_list: [{ rotation: -90 }] },
        ],
        format: { duration: '12.5' },
      }),
    ).toEqual({ width: 1080, height: 1920, duration: 12.5 });
    expect(
      fromProbe({
        streams: [{ codec_type: 'video', width: 640, height: 360, tags: { rotate: '180' } }],
      }),
    ).toEqual({ width: 640, height: 360 });
    const audioOnly = { streams: [{ codec_type: 'audio' }], format: { duration: '3.0' } };
    expect(fromProbe(audioOnly)).toEqual({ duration: 3 });
  });
});
