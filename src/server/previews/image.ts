/**
 * Images with sharp: dimensions as displayed (EXIF orientation applied) from the header alone,
 * and a JPEG preview that fits 800×800. `limitInputPixels` refuses decompression bombs before
 * decoding, `failOn` refuses truncated data, and the pipeline has a timeout. SVG is never
 * rasterised here: it is served as it is (sandboxed) and gets no preview. (librsvg runs no
 * script and, from a buffer, fetches nothing; but its rendering time cannot be bounded well.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { pixelLimitReason } from '../../contract/medium.js';
import type { Decoder } from '../../images/decoder.js';
import { type Described, MAX_INPUT_PIXELS, PREVIEW_MAX, previewFile } from './preview-file.js';

// Decoded images are big and rarely seen twice: do not keep them in libvips' cache.
sharp.cache(false);
// librsvg, loading an SVG from a file, resolves <image href> against that file and reads the
// files next to it (checked with librsvg 2.63); from a buffer it reads nothing. SVGs get no
// preview anyway: this keeps any mis-sniffed file from reaching that loader.
sharp.block({ operation: ['VipsForeignLoadSvgFile'] });

/** Formats sharp's libvips cannot read, decoded by a helper program first. */
const DECODED_ELSEWHERE: Record<string, () => Promise<Decoder>> = {
  'image/bmp': async () => (await import('../../images/bitmap.js')).decodeBitmap,
  'image/x-icon': async () => (await import('../../images/bitmap.js')).decodeBitmap,
  'image/vnd.microsoft.icon': async () => (await import('../../images/bitmap.js')).decodeBitmap,
  'image/heic': async () => (await import('../../images/heic.js')).decodeHeic,
  'image/heif': async () => (await import('../../images/heic.js')).decodeHeic,
};

export async function describeImage(
  path: string,
  mimeType: string,
  previewPath: string,
  timeoutMs: number,
): Promise<Described> {
  if (mimeType === 'image/svg+xml') return {};
  const decoder = DECODED_ELSEWHERE[mimeType];
  if (decoder) return describeDecoded(path, await decoder(), previewPath, timeoutMs);
  // The header alone, so even an image too big to decode still gets its size.
  const meta = await sharp(path, { limitInputPixels: false }).metadata();
  const described: Described = {
    width: meta.autoOrient?.width ?? meta.width,
    height: meta.autoOrient?.height ?? meta.height,
  };
  return withPreview(described, () => renderPreview(path, previewPath, timeoutMs));
}

/**
 * `described` with the preview `render` makes, or with the reason it has none: a corrupt,
 * truncated or oversized image is described as far as its header goes, and its uploader hears
 * why there is no preview (the pixel limit is read from the header, before any decoding).
 */
async function withPreview(
  described: Described,
  render: () => Promise<Described['preview']>,
): Promise<Described> {
  const tooBig = pixelLimitReason(described.width, described.height);
  if (tooBig) return { ...described, noPreview: tooBig };
  try {
    return { ...described, preview: await render() };
  } catch (err) {
    return { ...described, noPreview: whyNoPreview(err as Error) };
  }
}

/** libvips' words for a failed render, as an uploader would put them. */
function whyNoPreview(err: Error): string {
  const message = String(err.message ?? err).split('\n')[0]!;
  if (/premature end|truncated|unexpected end/i.test(message)) return 'the image is truncated';
  if (/pixel limit/i.test(message)) return 'the image has too many pixels for a preview';
  if (/timeout/i.test(message)) return 'the preview took too long to render';
  return `the image could not be decoded (${message})`;
}

/** The JPEG preview of an image sharp reads: upright, fit in 800×800, on white. */
async function renderPreview(path: string, previewPath: string, timeoutMs: number) {
  const info = await sharp(path, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'warning' })
    .autoOrient()
    .resize(PREVIEW_MAX, PREVIEW_MAX, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 80 })
    .timeout({ seconds: Math.max(1, Math.ceil(timeoutMs / 1000)) })
    .toFile(previewPath);
  return previewFile(info.width, info.height, info.size);
}

/** BMP, ICO, HEIC: decoded by ffmpeg or heif-convert, then described and previewed as usual. */
async function describeDecoded(
  path: string,
  decode: Decoder,
  previewPath: string,
  timeoutMs: number,
): Promise<Described> {
  const deadline = Date.now() + timeoutMs;
  const scratch = await mkdtemp(join(dirname(previewPath), '.decode-'));
  try {
    const decoded = await decode(path, scratch, timeoutMs);
    const meta = await sharp(decoded, { limitInputPixels: false }).metadata();
    const described: Described = {
      width: meta.autoOrient?.width ?? meta.width,
      height: meta.autoOrient?.height ?? meta.height,
    };
    // Decoded, but maybe too big or broken to render: then described by its size only.
    return await withPreview(described, () =>
      renderPreview(decoded, previewPath, deadline - Date.now()),
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
