/**
 * Photo → avatar images, the one job of this folder: `makeAvatar(photo, dir)` writes the three
 * images an avatar is made of and returns them with the photo's hash, or throws a PhotoError
 * naming the file. Nothing here talks to the service.
 */

import type { AvatarImageName } from './file-name.js';
import { openPhoto } from './photo.js';
import { probePhoto, type RenderedImage, renderAvatar } from './render.js';

export { PhotoError, type PhotoProblem } from './errors.js';
export { type AvatarImageName, avatarFileName, hashInFileName } from './file-name.js';
export { hashPhoto, MAX_PHOTO_BYTES, MAX_PHOTO_PIXELS, PHOTO_EXTENSIONS } from './photo.js';
export { AVATAR_IMAGES, AVATAR_SIZES, type RenderedImage } from './render.js';

export interface AvatarFiles {
  /** The first 16 hex digits of the photo's SHA-256 (also in every file name). */
  hash: string;
  images: Record<AvatarImageName, RenderedImage>;
}

/**
 * What a dry run knows of a photo without rendering it: opened as the run opens it (its size,
 * HEIC and BMP decoded) and its header read as the render reads it. A photo that is no image
 * or has too many pixels fails as in the run; damage past the header shows in the run only.
 * Resolves with the photo's hash.
 */
export async function checkPhoto(
  photoPath: string,
  opts: { env?: NodeJS.ProcessEnv; hash?: string } = {},
): Promise<string> {
  const photo = await openPhoto(photoPath, opts.env, opts.hash);
  try {
    await probePhoto(photo.readable, photoPath);
    return photo.hash;
  } finally {
    await photo.dispose();
  }
}

export async function makeAvatar(
  photoPath: string,
  outDir: string,
  opts: { env?: NodeJS.ProcessEnv; hash?: string } = {},
): Promise<AvatarFiles> {
  const photo = await openPhoto(photoPath, opts.env, opts.hash);
  try {
    return {
      hash: photo.hash,
      images: await renderAvatar(photo.readable, photo.hash, outDir, photoPath),
    };
  } finally {
    await photo.dispose();
  }
}
