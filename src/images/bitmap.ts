/**
 * BMP and ICO, which sharp's libvips does not read: ffmpeg decodes them (its bmp_pipe and ico
 * demuxers only, hardened as for video) to a PNG that keeps the icon's transparency. An ICO's
 * largest image is used. The size is checked against the pixel limit before decoding.
 */
import { join } from 'node:path';
import { type Decoder, MAX_INPUT_PIXELS } from './decoder.js';
import { fileArg, runFfmpeg, safeInput } from './ffmpeg.js';

const SAFE_INPUT = safeInput('bmp_pipe,ico');

interface Probe {
  streams?: { index: number; width?: number; height?: number }[];
}

export const decodeBitmap: Decoder = async (path, scratchDir, timeoutMs) => {
  const deadline = Date.now() + timeoutMs;
  const input = fileArg(path);
  const probe = JSON.parse(
    await runFfmpeg(
      'ffprobe',
      [
        '-v',
        'error',
        ...SAFE_INPUT,
        '-show_entries',
        'stream=index,width,height',
        '-of',
        'json',
        input,
      ],
      timeoutMs,
    ),
  ) as Probe;
  const largest = (probe.streams ?? [])
    .filter((s) => s.width && s.height)
    .sort((a, b) => b.width! * b.height! - a.width! * a.height!)[0];
  if (!largest) throw new Error('no image in the file');
  if (largest.width! * largest.height! > MAX_INPUT_PIXELS) {
    throw new Error(`${largest.width}×${largest.height} is over the pixel limit`);
  }
  const out = join(scratchDir, 'decoded.png');
  await runFfmpeg(
    'ffmpeg',
    [
      '-nostdin',
      '-v',
      'error',
      ...SAFE_INPUT,
      '-i',
      input,
      '-map',
      `0:${largest.index}`,
      '-frames:v',
      '1',
      '-f',
      'image2',
      '-update',
      '1',
      '-c:v',
      'png',
      '-y',
      fileArg(out),
    ],
    Math.max(1, deadline - Date.now()),
  );
  return out;
};
