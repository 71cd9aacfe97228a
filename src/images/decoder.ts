/**
 * Decoding the images sharp's libvips cannot read (HEIC, BMP, ICO) with a helper program, for
 * both the server's previews and the CLI's avatars: a layer below both, which imports neither.
 */
import { MAX_PREVIEW_PIXELS } from '../contract/medium.js';

/**
 * Decodes `path` into a file sharp reads (in `scratchDir`), or throws when it cannot; the
 * caller removes the scratch dir.
 */
export type Decoder = (path: string, scratchDir: string, timeoutMs: number) => Promise<string>;

/** The contract's pixel limit for previews (images and PDFs), as libvips and pdfjs take it. */
export const MAX_INPUT_PIXELS = MAX_PREVIEW_PIXELS;
