/**
 * `serve --strip-metadata`: an image upload decoded and written again, so nothing but its pixels
 * survives (EXIF with its GPS position and serial numbers, XMP, IPTC, comments, maker notes,
 * embedded thumbnails: sharp writes none of it unless asked, and it is never asked here). It is
 * turned upright first, as its EXIF orientation goes too. Each format is written as itself
 * (JPEG and WebP at quality 90, PNG, GIF and TIFF losslessly), except HEIC: sharp's libvips
 * cannot write HEVC, so a HEIC is decoded by heif-convert (as for its preview) and stored as a
 * JPEG. SVG, BMP and ICO hold no camera metadata and are kept as sent; any other image kind is
 * refused rather than stored with what it may carry.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { decodeHeic } from '../../images/heic.js';
import { MAX_INPUT_PIXELS } from './preview-file.js';
import type { Kind } from './sniff.js';

sharp.cache(false);

/** Why an image could not be stripped: a kind this cannot write, or bytes it cannot decode. */
export class CannotStrip extends Error {
  constructor(
    readonly reason: 'format' | 'decode',
    message: string,
  ) {
    super(message);
    this.name = 'CannotStrip';
  }
}

const WRITERS: Record<string, (s: Sharp) => Sharp> = {
  'image/jpeg': (s) => s.jpeg({ quality: 90 }),
  'image/png': (s) => s.png(),
  'image/webp': (s) => s.webp({ quality: 90 }),
  'image/gif': (s) => s.gif(),
  'image/tiff': (s) => s.tiff({ compression: 'lzw' }),
  'image/avif': (s) => s.avif(),
};
const HEIF = new Set(['image/heic', 'image/heif']);
const KEPT = new Set(['image/svg+xml', 'image/bmp', 'image/x-icon', 'image/vnd.microsoft.icon']);
const JPEG: Kind = { type: 'image', mimeType: 'image/jpeg', format: 'jpg' };

export interface Stripped {
  /** What was written: the upload's own kind, or JPEG for a HEIC. */
  kind: Kind;
  bytes: number;
}

/**
 * Writes `path` (an image of `kind`) without metadata to `outPath`; undefined when the kind is
 * kept as sent. Throws CannotStrip when it cannot.
 */
export async function stripImage(
  path: string,
  kind: Kind,
  outPath: string,
  timeoutMs: number,
): Promise<Stripped | undefined> {
  if (KEPT.has(kind.mimeType)) return undefined;
  if (HEIF.has(kind.mimeType)) {
    const scratch = await mkdtemp(join(dirname(outPath), '.strip-'));
    try {
      const decoded = await decodeHeic(path, scratch, timeoutMs).catch((err: Error) => {
        if (!/ENOENT/.test(err.message)) throw new CannotStrip('decode', err.message);
        throw new CannotStrip(
          'format',
          `a HEIC is decoded by heif-convert (libheif-examples), which this server lacks; convert it to JPEG first`,
        );
      });
      return {
        kind: JPEG,
        bytes: await write(decoded, WRITERS['image/jpeg']!, outPath, timeoutMs),
      };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  const writer = WRITERS[kind.mimeType];
  if (!writer) {
    throw new CannotStrip(
      'format',
      `${kind.mimeType} cannot be written again without its metadata; convert it to JPEG or PNG first`,
    );
  }
  return { kind, bytes: await write(path, writer, outPath, timeoutMs) };
}

async function write(path: string, writer: (s: Sharp) => Sharp, outPath: string, ms: number) {
  try {
    // The header first: an animation keeps its frames (and has no orientation to apply).
    const { pages = 1 } = await sharp(path, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    const input = sharp(path, {
      limitInputPixels: MAX_INPUT_PIXELS,
      failOn: 'error',
      animated: pages > 1,
    });
    const upright = pages > 1 ? input : input.autoOrient();
    const info = await writer(upright)
      .timeout({ seconds: Math.max(1, Math.ceil(ms / 1000)) })
      .toFile(outPath);
    return info.size;
  } catch (err) {
    throw new CannotStrip('decode', (err as Error).message.split('\n')[0] ?? 'unreadable');
  }
}
