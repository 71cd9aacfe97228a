/** How avatar results print: one row per user (JSON: id, result, hash, avatar). */
import type { AvatarImage } from '../../../../contract/user.js';
import type { Column } from '../../../output/render.js';
import type { AvatarChange } from './apply.js';

const size = (i: AvatarImage | undefined) =>
  i?.width && i.height ? `${i.width}×${i.height}` : undefined;

export const CHANGE_COLUMNS: Column<AvatarChange>[] = [
  { header: 'user', value: (c) => c.user.id },
  { header: 'result', value: (c) => c.result },
  { header: 'hash', value: (c) => c.hash },
  { header: 'original', value: (c) => size(c.user.profile.avatar?.original) },
  { header: 'thumb', value: (c) => c.user.profile.avatar?.thumb?.url, wrap: true },
];

export const changeJson = (c: AvatarChange) => ({
  id: c.user.id,
  result: c.result,
  hash: c.hash ?? null,
  avatar: c.user.profile.avatar ?? null,
  ...(c.leftOver.length > 0 ? { leftOverMedia: c.leftOver } : {}),
});

export interface ImageRow extends AvatarImage {
  image: string;
  /** Where --download saved it. */
  saved?: string;
}

export const IMAGE_COLUMNS: Column<ImageRow>[] = [
  { header: 'image', value: (r) => r.image },
  { header: 'size', value: (r) => (r.width && r.height ? `${r.width}×${r.height}` : undefined) },
  { header: 'bytes', value: (r) => r.size },
  { header: 'type', value: (r) => r.mimeType },
  { header: 'saved', value: (r) => r.saved },
  { header: 'url', value: (r) => r.url, wrap: true },
];
