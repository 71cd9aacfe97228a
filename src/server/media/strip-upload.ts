/**
 * `serve --strip-metadata` on an upload: an image written again without its metadata
 * (previews/strip.ts), in the same fair slots as previews. Unlike a preview this must happen: an
 * image it cannot strip is refused, never stored with what it carries. One that carries nothing
 * (its structure read as the avatar check reads it) is kept as sent: no second compression of
 * what `roster users avatar set` made, and the same bytes on every upload.
 */
import { readFile } from 'node:fs/promises';
import { AppError } from '../errors.js';
import type { Kind } from '../previews/index.js';
import type { Stripped } from '../previews/strip.js';
import { metadataIn, SCAN_MAX_BYTES, scannedFormatOf } from './image-metadata.js';
import type { PreviewScheduler } from './preview-scheduler.js';

export interface StripperDeps {
  schedule: PreviewScheduler;
  timeoutMs: number;
}

const FLAG = 'serve --strip-metadata';

export function uploadStripper({ schedule, timeoutMs }: StripperDeps) {
  /**
   * `file` (of `kind`) without metadata in `outPath`; undefined when it is kept as sent. `key`
   * is the tenant and token whose share of the slots it takes.
   */
  return async (
    key: string,
    file: { path: string; bytes: number },
    kind: Kind,
    outPath: string,
  ): Promise<Stripped | undefined> => {
    if (kind.type !== 'image') return undefined;
    const format = scannedFormatOf(kind.mimeType);
    if (format && file.bytes <= SCAN_MAX_BYTES) {
      if (metadataIn(await readFile(file.path), format).length === 0) return undefined;
    }
    const { stripImage, CannotStrip } = await import('../previews/strip.js');
    const outcome = await schedule(key, () =>
      stripImage(file.path, kind, outPath, timeoutMs),
    ).catch((err: unknown) => {
      if (!(err instanceof CannotStrip)) throw err;
      throw err.reason === 'format'
        ? new AppError(
            'unsupportedMediaType',
            `this server strips metadata from every image (${FLAG}), and ${err.message}`,
          )
        : new AppError(
            'validation',
            `the image could not be re-encoded to strip its metadata (${FLAG}): ${err.message}`,
          );
    });
    if (!outcome.ran) {
      throw new AppError(
        'serviceUnavailable',
        `the image could not be stripped of its metadata now (${outcome.reason}: this token's images are queued); try the upload again shortly`,
        undefined,
        { 'Retry-After': '5' },
      );
    }
    return outcome.value;
  };
}
