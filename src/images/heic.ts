/**
 * HEIC/HEIF (iPhone photos): sharp's prebuilt libvips has no HEVC decoder, so Debian's
 * `heif-convert` (libheif-examples; HEIF_CONVERT_PATH overrides) decodes the primary image to a
 * JPEG, as ffmpeg is used for video; without it a HEIC simply has no preview. Hardened like the
 * ffmpeg call: file arguments only (absolute paths, never read as options), no stdin, no
 * network (libheif reads the one file), killed at the deadline; the header's size is checked
 * against the pixel limit before decoding.
 */
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { resolve as absolute, join } from 'node:path';
import sharp from 'sharp';
import { type Decoder, MAX_INPUT_PIXELS } from './decoder.js';

const binary = () => process.env.HEIF_CONVERT_PATH || 'heif-convert';

function run(args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      binary(),
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024 },
      (err, _stdout, stderr) => {
        // Not there at all (ENOENT) says nothing on stderr: the error's own message does.
        if (err)
          reject(
            new Error(`heif-convert failed: ${stderr.trim().split('\n').at(-1) || err.message}`),
          );
        else resolve();
      },
    );
    child.stdin?.end();
  });
}

export const decodeHeic: Decoder = async (path, scratchDir, timeoutMs) => {
  // sharp reads the HEIF container's header (it cannot decode the HEVC data).
  const meta = await sharp(path, { limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  if (meta?.width && meta.height && meta.width * meta.height > MAX_INPUT_PIXELS) {
    throw new Error(`${meta.width}×${meta.height} is over the pixel limit`);
  }
  await run(['--quiet', '-q', '90', absolute(path), join(scratchDir, 'decoded.jpg')], timeoutMs);
  // A file of several images is written as decoded-1.jpg, decoded-2.jpg…: the first is primary.
  const [first] = (await readdir(scratchDir)).filter((n) => n.endsWith('.jpg')).sort();
  if (!first) throw new Error('heif-convert wrote no image');
  return join(scratchDir, first);
};
