/**
 * The three avatar images from one photo: `original` upright by its EXIF orientation before
 * anything else, in sRGB, at most 2048 px on the long edge (never enlarged), written straight
 * from the decoder to its file; then `thumb` 200×200 cut from that file with an attention
 * (saliency) crop, and `icon` 48×48 scaled from the thumb (the same crop). JPEG quality 85, or
 * PNG when the photo has transparent pixels. Nothing of the photo's metadata is written: sharp
 * keeps none (EXIF, GPS, XMP, ICC) unless asked, and it is never asked here.
 *
 * Memory (a folder of 12-MP photos must stay under 200 MB; figures: bench/README.md, "Avatars:
 * memory"): what a run keeps is what glibc's malloc keeps of what libvips freed, per thread
 * that allocated it. So one photo is in libvips at a time in this process, its three images one
 * after the other (one pipeline, few threads), whatever the upload concurrency; the decoded
 * pixels never come back to JS (no Buffer waiting for V8's next collection); and the original's
 * JPEG skips Huffman optimisation, which makes libjpeg hold the whole image's coefficients
 * (9 MB at 2048 px; its free raises glibc's threshold for keeping freed memory): +6 % bytes.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import sharp, { type OutputInfo, type Sharp } from 'sharp';
import { PhotoError } from './errors.js';
import { type AvatarImageName, avatarFileName } from './file-name.js';
import { MAX_PHOTO_PIXELS } from './photo.js';

// Photos are big and seen once: keep no decoded image in libvips' cache. sharp.concurrency() is
// left at sharp's glibc default of 1 thread per pipeline.
sharp.cache(false);

export const AVATAR_SIZES: Record<AvatarImageName, number> = {
  original: 2048,
  thumb: 200,
  icon: 48,
};
export const AVATAR_IMAGES: AvatarImageName[] = ['original', 'thumb', 'icon'];
const JPEG_QUALITY = 85;

export interface RenderedImage {
  name: AvatarImageName;
  path: string;
  /** `avatar.<hash>.<name>.<jpg|png>`: the name the medium is stored under. */
  fileName: string;
  width: number;
  height: number;
  bytes: number;
  format: 'jpg' | 'png';
  mimeType: 'image/jpeg' | 'image/png';
}

const tooManyPixels = (file: string) =>
  new PhotoError(
    file,
    'too-many-pixels',
    `has more than ${MAX_PHOTO_PIXELS / 1_000_000} megapixels (a decompression bomb, or a panorama to scale down first)`,
  );

/** sharp's and libvips' messages, as the reason a photo failed. */
function problemOf(file: string, err: unknown): PhotoError {
  const why = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(why)) return tooManyPixels(file);
  if (/unsupported image format|bad seek|not a known file format/i.test(why)) {
    return new PhotoError(
      file,
      'not-an-image',
      'is not an image Roster reads (JPEG, PNG, GIF, WebP, TIFF, BMP, HEIC)',
    );
  }
  return new PhotoError(file, 'broken', `is damaged or truncated (${why.split('\n')[0]})`);
}

/**
 * What can be known of `readable` from its header alone, as the render would find it: that it
 * is an image sharp decodes, within the pixel limit. Throws the render's PhotoError otherwise.
 */
export async function probePhoto(readable: string, file = readable): Promise<void> {
  const meta = await sharp(readable, { limitInputPixels: false })
    .metadata()
    .catch((err: unknown) => {
      throw problemOf(file, err);
    });
  if ((meta.width ?? 0) * (meta.height ?? 0) > MAX_PHOTO_PIXELS) throw tooManyPixels(file);
}

/** Runs `job` after every job queued before it has settled: one photo in libvips at a time. */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(job: () => Promise<T>): Promise<T> {
  const run = queue.then(job);
  queue = run.catch(() => {});
  return run;
}

/**
 * Renders the avatar images of `readable` (a file sharp decodes) into `outDir`; `file` names
 * the photo in errors. Throws a PhotoError when the photo cannot be decoded.
 */
export function renderAvatar(
  readable: string,
  hash: string,
  outDir: string,
  file = readable,
  timeoutSeconds = 60,
): Promise<Record<AvatarImageName, RenderedImage>> {
  return oneAtATime(() => render(readable, hash, outDir, file, timeoutSeconds));
}

async function render(
  readable: string,
  hash: string,
  outDir: string,
  file: string,
  timeoutSeconds: number,
): Promise<Record<AvatarImageName, RenderedImage>> {
  const pathOf = (name: AvatarImageName, format: 'jpg' | 'png') =>
    join(outDir, avatarFileName(hash, name, format));
  const image = (name: AvatarImageName, format: 'jpg' | 'png', out: OutputInfo): RenderedImage => ({
    name,
    path: pathOf(name, format),
    fileName: avatarFileName(hash, name, format),
    width: out.width,
    height: out.height,
    bytes: out.size,
    format,
    mimeType: format === 'png' ? 'image/png' : 'image/jpeg',
  });
  const jpeg = (s: Sharp, optimiseCoding = true) =>
    s
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: JPEG_QUALITY, mozjpeg: false, optimiseCoding });

  let original: RenderedImage;
  try {
    const upright = () =>
      sharp(readable, { limitInputPixels: MAX_PHOTO_PIXELS, failOn: 'truncated' })
        .autoOrient()
        .resize(AVATAR_SIZES.original, AVATAR_SIZES.original, {
          fit: 'inside',
          withoutEnlargement: true,
        })
        .toColourspace('srgb')
        .timeout({ seconds: timeoutSeconds });
    // The header only. A photo with an alpha channel is written as PNG, then made a JPEG after
    // all when none of its pixels turned out transparent (a GIF, a PNG saved with alpha).
    const { hasAlpha } = await sharp(readable, { limitInputPixels: false }).metadata();
    if (!hasAlpha) {
      const out = await jpeg(upright(), false).toFile(pathOf('original', 'jpg'));
      original = image('original', 'jpg', out);
    } else {
      original = image('original', 'png', await upright().png().toFile(pathOf('original', 'png')));
      if ((await sharp(original.path).stats()).isOpaque) {
        const png = original.path;
        const out = await jpeg(sharp(png), false).toFile(pathOf('original', 'jpg'));
        original = image('original', 'jpg', out);
        await rm(png);
      }
    }
  } catch (err) {
    throw problemOf(file, err);
  }

  const { format } = original;
  const square = async (name: AvatarImageName, from: RenderedImage) => {
    const side = AVATAR_SIZES[name];
    const s = sharp(from.path).resize(side, side, {
      fit: 'cover',
      position: sharp.strategy.attention,
    });
    return image(
      name,
      format,
      await (format === 'png' ? s.png() : jpeg(s)).toFile(pathOf(name, format)),
    );
  };
  const thumb = await square('thumb', original);
  const icon = await square('icon', thumb);
  return { original, thumb, icon };
}
