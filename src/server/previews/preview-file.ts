/** Every preview is a JPEG of at most 800×800, whatever it was made from. */
export const PREVIEW_MAX = 800;
export const PREVIEW_FORMAT = 'jpg';
export const PREVIEW_MIME = 'image/jpeg';

// The contract's pixel limit for previews, kept beside the decoders that check it too.
export { MAX_INPUT_PIXELS } from '../../images/decoder.js';

export interface PreviewFile {
  width: number;
  height: number;
  bytes: number;
  format: string;
  mimeType: string;
}

/** What describing a file found out; anything it could not find out is absent. */
export interface Described {
  width?: number;
  height?: number;
  /** Seconds, videos only. */
  duration?: number;
  preview?: PreviewFile;
  /** Why a file of a type that gets previews has none, in words for whoever uploaded it. */
  noPreview?: string;
}

export const previewFile = (width: number, height: number, bytes: number): PreviewFile => ({
  width,
  height,
  bytes,
  format: PREVIEW_FORMAT,
  mimeType: PREVIEW_MIME,
});
