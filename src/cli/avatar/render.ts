/**
 * The three avatar images from one photo, decoded once: upright by its EXIF orientation before
 * anything else, in sRGB, at most 2048 px on the long edge (never enlarged); then `thumb`
 * 200×200 and `icon` 48×48 cut from that with an attention (saliency) crop. JPEG quality 85, or
 * PNG when the photo has transparent pixels. Nothing of the photo's metadata is written: sharp
 * keeps none (EXIF, GPS, XMP, ICC) unless asked, and it is never asked here.
 */
import { join } from 'node:path';
import sharp, { type OutputInfo, type Sharp } from 'sharp';
import { PhotoError } from './errors.js';
import { type AvatarImageName, avatarFileName } from './file-name.js';
import { MAX_PHOTO_PIXELS } from './photo.js';

// Photos are big and seen once: keep no decoded image in libvips' cache (memory stays flat).
// sharp.concurrency() is left at sharp's glibc default of 1 thread per pipeline. What remains of
// a folder run's peak is mostly glibc's per-thread malloc arenas holding what libvips freed,
// which only the environment can limit, before Node starts (MALLOC_ARENA_MAX=2). Fewer photos
// decoded at once, or the decoded pixels in a file instead of a Buffer, moved the peak by less
// than run-to-run noise. Figures: bench/README.md, "Avatars: memory".
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

/** Whether any pixel is not fully opaque (alpha is the last of `channels`). */
function hasTransparency(data: Buffer, channels: number): boolean {
  if (channels !== 2 && channels !== 4) return false;
  for (let i = channels - 1; i < data.length; i += channels) if (data[i] !== 255) return true;
  return false;
}

/** sharp's and libvips' messages, as the reason a photo failed. */
function problemOf(file: string, err: unknown): PhotoError {
  const why = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(why)) {
    return new PhotoError(
      file,
      'too-many-pixels',
      `has more than ${MAX_PHOTO_PIXELS / 1_000_000} megapixels (a decompression bomb, or a panorama to scale down first)`,
    );
  }
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
 * Renders the avatar images of `readable` (a file sharp decodes) into `outDir`; `file` names
 * the photo in errors. Throws a PhotoError when the photo cannot be decoded.
 */
export async function renderAvatar(
  readable: string,
  hash: string,
  outDir: string,
  file = readable,
  timeoutSeconds = 60,
): Promise<Record<AvatarImageName, RenderedImage>> {
  let decoded: { data: Buffer; info: OutputInfo };
  try {
    decoded = await sharp(readable, { limitInputPixels: MAX_PHOTO_PIXELS, failOn: 'truncated' })
      .autoOrient()
      .resize(AVATAR_SIZES.original, AVATAR_SIZES.original, {
        fit: 'inside',
        withoutEnlargement: true,
      })
      .toColourspace('srgb')
      .raw()
      .timeout({ seconds: timeoutSeconds })
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw problemOf(file, err);
  }
  const { data, info } = decoded;
  const transparent = hasTransparency(data, info.channels);
  const format = transparent ? 'png' : 'jpg';
  const pixels = () =>
    sharp(data, {
      raw: { width: info.width, height: info.height, channels: info.channels as 1 | 2 | 3 | 4 },
    });
  const encode = (s: Sharp) =>
    transparent
      ? s.png()
      : s.flatten({ background: '#ffffff' }).jpeg({ quality: JPEG_QUALITY, mozjpeg: false });

  const write = async (name: AvatarImageName, image: Sharp): Promise<RenderedImage> => {
    const fileName = avatarFileName(hash, name, format);
    const path = join(outDir, fileName);
    const out = await encode(image).toFile(path);
    return {
      name,
      path,
      fileName,
      width: out.width,
      height: out.height,
      bytes: out.size,
      format,
      mimeType: transparent ? 'image/png' : 'image/jpeg',
    };
  };
  const square = (side: number) =>
    pixels().resize(side, side, { fit: 'cover', position: sharp.strategy.attention });
  const [original, thumb, icon] = await Promise.all([
    write('original', pixels()),
    write('thumb', square(AVATAR_SIZES.thumb)),
    write('icon', square(AVATAR_SIZES.icon)),
  ]);
  return { original, thumb, icon };
}
