/**
 * Images with sharp: dimensions as displayed (EXIF orientation applied) from the header alone,
 * and a JPEG preview that fits 800×800. `limitInputPixels` refuses decompression bombs before
 * decoding, `failOn` refuses truncated data, and the pipeline has a timeout. SVG is never
 * rasterised here: it is served as it is (sandboxed) and gets no preview. (librsvg runs no
 * script and, from a buffer, fetches nothing; but its rendering time cannot be bounded well.)
 */
import sharp from 'sharp';
import { type Described, MAX_INPUT_PIXELS, PREVIEW_MAX, previewFile } from './preview-file.js';

// Decoded images are big and rarely seen twice: do not keep them in libvips' cache.
sharp.cache(false);
// librsvg, loading an SVG from a file, resolves <image href> against that file and reads the
// files next to it (checked with librsvg 2.63); from a buffer it reads nothing. SVGs get no
// preview anyway: this keeps any mis-sniffed file from reaching that loader.
sharp.block({ operation: ['VipsForeignLoadSvgFile'] });

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
