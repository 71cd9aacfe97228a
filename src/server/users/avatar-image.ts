/**
 * Which media may be an avatar's image. Everyone who sees a user sees the avatar, so its files
 * must hold the picture and nothing else: a photo's EXIF or XMP gives away where it was taken
 * (often at home) and the camera's serial number. An image that carries any metadata is
 * refused, naming what it carries and how to get a clean one, rather than changed behind the
 * client's back; `roster users avatar set` and `serve --strip-metadata` store clean ones.
 * JPEG, PNG and WebP only: the formats browsers show, and ones whose structure is checked
 * whole (image-metadata.ts). The file is read through the BlobStore, so it is capped.
 */
import type { MediumRow } from '../../store/types.js';
import { metadataIn, SCAN_MAX_BYTES, scannedFormatOf } from '../media/image-metadata.js';

const FIX =
  "upload the image without metadata and give that medium's URL (roster users avatar set strips it, and so does a serve started with --strip-metadata)";

/** Why `row` cannot be an avatar's image, or undefined when it can. */
export async function avatarImageProblem(
  row: MediumRow,
  contents: (row: MediumRow, maxBytes: number) => Promise<Buffer>,
): Promise<string | undefined> {
  const format = scannedFormatOf(row.mime_type);
  if (!format) {
    return `its medium is ${row.mime_type}; an avatar image is a JPEG, PNG or WebP (roster users avatar set converts a photo)`;
  }
  // Far above an avatar's 2048-pixel original; as much as a PUT should read from storage.
  if (row.bytes > SCAN_MAX_BYTES) {
    return `its medium is ${row.bytes} bytes; an avatar image is at most ${SCAN_MAX_BYTES} bytes (roster users avatar set scales a photo down)`;
  }
  const carried = metadataIn(await contents(row, SCAN_MAX_BYTES), format);
  if (carried.length === 0) return undefined;
  return `its medium carries ${carried.join(', ')}, which everyone who sees the avatar would get; ${FIX}`;
}
