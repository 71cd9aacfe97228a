/**
 * Images with sharp: dimensions as displayed (EXIF orientation applied) from the header alone,
 * and a JPEG preview that fits 800×800. `limitInputPixels` refuses decompression bombs before
 * decoding, `failOn` refuses truncated data, and the pipeline has a timeout. SVG is never
 * rasterised here: it is served as it is (sandboxed) and gets no preview.
 */
import sharp from 'sharp';
import { type Described, PREVIEW_MAX, previewFile } from './preview-file.js';

/** 100 megapixels: a 24-MP camera JPEG is fine, a 30000² PNG bomb is not. */
export const MAX_INPUT_PIXELS = 100_000_000;

// Decoded images are big and rarely seen twice: do not keep them in libvips' cache.
sharp.cache(false);

export async function describeImage(
  path: string,
  mimeType: string,
  previewPath: string,
  timeoutMs: number,
): Promise<Described> {
  if (mimeType === 'image/svg+xml') return {};
  const options = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'warning' as const };
  // The header alone, so even an image too big to decode still gets its size.
  const meta = await sharp(path, { limitInputPixels: false }).metadata();
  const described: Described = {
    width: meta.autoOrient?.width ?? meta.width,
    height: meta.autoOrient?.height ?? meta.height,
  };
  try {
    const info = await sharp(path, options)
      .autoOrient()
      .resize(PREVIEW_MAX, PREVIEW_MAX, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 80 })
      .timeout({ seconds: Math.max(1, Math.ceil(timeoutMs / 1000)) })
      .toFile(previewPath);
    described.preview = previewFile(info.width, info.height, info.size);
  } catch {
    // A corrupt, truncated or oversized image: described as far as its header goes.
  }
  return described;
}
