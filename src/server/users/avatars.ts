/**
 * Avatars on `serve`: an avatar is made of this branch's own media. A write gives URLs; each
 * must be the URL of one of the branch's media (as the media answers gave it, signed or not) —
 * the URL is parsed, never fetched — that holds an image and no metadata (avatar-image.ts),
 * and what is stored is the medium's id (`medium:<id>` in the avatar's JSON column, so the
 * column and its type stay as they were). A read answers each
 * image with a freshly signed URL and the medium's width, height, size, format and MIME type; an
 * image whose medium was deleted is gone from every read from then on. An avatar stored before
 * this (plain URLs) is answered as it was stored.
 */
import type { Medium } from '../../contract/medium.js';
import type { Avatar, AvatarImage, UserRecord } from '../../contract/user.js';
import type { Store } from '../../store/store.js';
import type { MediumRow } from '../../store/types.js';
import { AppError, validationError } from '../errors.js';
import type { RequestScope } from '../http/state.js';
import { encodePath, publicIdOf } from '../media/public-id.js';
import { avatarImageProblem } from './avatar-image.js';

const IMAGES = ['original', 'thumb', 'icon'] as const;
const LINK = /^medium:([A-Za-z0-9_-]{1,64})$/;

export interface AvatarMediaDeps {
  store: Store;
  /** The branch's media as Media, their URLs signed for `cdnBase` (media.service's viewer). */
  viewer: (scope: RequestScope, cdnBase: string) => (row: MediumRow) => Medium;
  /** Deletes a medium of the branch (files and row). */
  removeMedium: (scope: RequestScope, id: string) => Promise<void>;
  /** A medium's file, refused beyond `maxBytes` (media.service's contents). */
  contents: (row: MediumRow, maxBytes: number) => Promise<Buffer>;
}

/** The medium ids a stored avatar links to. */
export const linkedMedia = (avatar: Avatar | null): string[] =>
  IMAGES.flatMap((name) => LINK.exec(avatar?.[name]?.url ?? '')?.[1] ?? []);

export function avatarMedia(deps: AvatarMediaDeps) {
  const { store } = deps;

  /** The branch's medium a URL names (`<cdnBase>/<tenant>/<branch>/<id>/<file name>`), if any. */
  async function mediumOf(scope: RequestScope, url: string, cdnBase: string) {
    let given: URL;
    let base: URL;
    try {
      given = new URL(url);
      base = new URL(`${cdnBase}/`);
    } catch {
      return undefined;
    }
    if (given.origin !== base.origin || !given.pathname.startsWith(base.pathname)) return undefined;
    const id = given.pathname.slice(base.pathname.length).split('/')[2];
    if (!id || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined;
    const row = await store.media.find(scope.branch.id, id);
    if (!row) return undefined;
    const place = {
      tenantHost: scope.tenant.host,
      branchName: scope.branch.name,
      id,
      fileName: row.file_name,
    };
    return given.pathname === `${base.pathname}${encodePath(publicIdOf(place))}` ? row : undefined;
  }

  return {
    /**
     * The avatar as stored: each URL replaced by its medium's link, or a 400 naming the field
     * (`profile.avatar.thumb.url`) when a URL is not one of this branch's media, or its medium
     * cannot be an avatar's image (avatar-image.ts) and is not among `kept` (the media the
     * avatar has already, taken when it was set).
     */
    async link(
      scope: RequestScope,
      avatar: Avatar | null,
      cdnBase: string,
      kept: readonly string[] = [],
    ): Promise<Avatar | null> {
      if (avatar === null) return null;
      const out: Avatar = {};
      const issues: { field: string; message: string }[] = [];
      for (const name of IMAGES) {
        const image = avatar[name];
        if (!image) continue;
        const field = `profile.avatar.${name}.url`;
        const row = await mediumOf(scope, image.url, cdnBase);
        if (!row) {
          issues.push({
            field,
            message: `is not the URL of a medium of this branch (upload the image with POST /media and give its resourceInfo.url)`,
          });
          continue;
        }
        const problem = kept.includes(row.id)
          ? undefined
          : await avatarImageProblem(row, deps.contents);
        if (problem) issues.push({ field, message: problem });
        else out[name] = { url: `medium:${row.id}` };
      }
      if (issues.length > 0) throw validationError(issues, 'user');
      return IMAGES.some((n) => out[n]) ? out : null;
    },

    /** The user as answered: linked images with fresh URLs and the media's facts. */
    async present(scope: RequestScope, user: UserRecord, cdnBase: string): Promise<UserRecord> {
      const ids = linkedMedia(user.avatar);
      if (ids.length === 0) return user;
      const view = deps.viewer(scope, cdnBase);
      const shown = await Promise.all(
        IMAGES.map(async (name): Promise<AvatarImage | undefined> => {
          const image = user.avatar?.[name];
          const id = LINK.exec(image?.url ?? '')?.[1];
          // Stored before avatars were media (a plain URL): answered as it was stored.
          if (!image || !id) return image;
          const row = await store.media.find(scope.branch.id, id);
          if (!row) return undefined; // its medium was deleted: so is the image
          const { url, width, height, bytes, format, mimeType } = view(row).resourceInfo;
          // As the service interface reads them: the original with its size, the others without.
          return name === 'original'
            ? { url, width, height, size: bytes, format, mimeType }
            : { url, format, mimeType };
        }),
      );
      const avatar: Avatar = {};
      IMAGES.forEach((name, i) => {
        if (shown[i]) avatar[name] = shown[i];
      });
      return { ...user, avatar: IMAGES.some((n) => avatar[n]) ? avatar : null };
    },

    /** Deletes the media a removed user's avatar was made of (those still there). */
    async removeOf(scope: RequestScope, user: UserRecord): Promise<void> {
      for (const id of linkedMedia(user.avatar)) {
        await deps.removeMedium(scope, id).catch((err: unknown) => {
          if (!(err instanceof AppError && err.kind === 'notFound')) throw err;
        });
      }
    },
  };
}

export type AvatarMediaService = ReturnType<typeof avatarMedia>;
