/** Every preview is a JPEG of at most 800×800, whatever it was made from. */
export const PREVIEW_MAX = 800;
export const PREVIEW_FORMAT = 'jpg';
export const PREVIEW_MIME = 'image/jpeg';
/** 100 megapixels: a 24-MP camera JPEG is fine, a 30000² PNG bomb is not (images and PDFs). */
export const MAX_INPUT_PIXELS = 100_000_000;

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
}

export const previewFile = (width: number, height: number, bytes: number): PreviewFile => ({
  width,
  height,
  bytes,
  format: PREVIEW_FORMAT,
  mimeType: PREVIEW_MIME,
});
