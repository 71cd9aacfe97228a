/**
 * Describes an upload (dimensions, duration) and renders its t_preview to `previewPath`, by
 * the sniffed type. What cannot be found out is left out; a file that cannot even be opened
 * rejects, and the caller stores it undescribed. sharp, pdfjs and ffmpeg load on first use.
 */
import type { Described } from './preview-file.js';
import type { Kind } from './sniff.js';

export type { Described, PreviewFile } from './preview-file.js';
export { type Kind, sniffType } from './sniff.js';

export interface PreviewOptions {
  /** Where the JPEG preview goes (a temp path; the caller stores or removes it). */
  previewPath: string;
  /** Past this, the preview is abandoned. */
  timeoutMs: number;
}

export async function describeAndPreview(
  path: string,
  kind: Kind,
  { previewPath, timeoutMs }: PreviewOptions,
): Promise<Described> {
  switch (kind.type) {
    case 'image': {
      const { describeImage } = await import('./image.js');
      return describeImage(path, kind.mimeType, previewPath, timeoutMs);
    }
    case 'pdf':
      return (await import('./pdf.js')).describePdf(path, previewPath, timeoutMs);
    case 'video':
      return (await import('./video.js')).describeVideo(path, previewPath, timeoutMs);
    default:
      return {};
  }
}
