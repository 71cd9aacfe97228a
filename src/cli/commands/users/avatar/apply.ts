/**
 * Setting and clearing an avatar as one change: the new images are uploaded, then the user is
 * updated, and only then are the old avatar's media deleted — never a moment without an avatar,
 * and a failure before the update deletes what it uploaded (no orphans). The same calls work on
 * `roster serve` and on the platform.
 */
import { ApiError } from '../../../../client/errors.js';
import type { ApiClient, UserUpdateBody } from '../../../../client/index.js';
import type { Medium } from '../../../../contract/medium.js';
import type { Avatar, UserV3 } from '../../../../contract/user.js';
import {
  AVATAR_IMAGES,
  type AvatarImageName,
  hashPhoto,
  makeAvatar,
} from '../../../avatar/index.js';
import { tempDir } from '../../../temp-dir.js';
import { findUser } from '../lookup.js';
import { type AvatarMedia, avatarHashOf, avatarUrls } from './media.js';

export interface AvatarChange {
  user: UserV3;
  /** `unchanged`: the user's avatar was already made from this photo; nothing was sent. */
  result: 'set' | 'unchanged' | 'removed' | 'none';
  hash?: string;
  /** Old avatar media that could not be deleted (ids), to report; the change itself stands. */
  leftOver: string[];
}

export interface AvatarDeps {
  client: ApiClient;
  media: AvatarMedia;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** Deletes the old avatar's media (those `avatar set` made), after the user no longer uses them. */
async function deleteOld(deps: AvatarDeps, old: Avatar | null | undefined): Promise<string[]> {
  const media = await deps.media.find(avatarUrls(old));
  const leftOver: string[] = [];
  await Promise.all(
    media.map(async (m) => {
      try {
        await deps.client.deleteMedium(m.id);
        deps.media.forget(m);
      } catch (err) {
        // Already gone (a server that deletes it with the avatar) is what was wanted.
        if (!(err instanceof ApiError && err.status === 404)) leftOver.push(m.id);
      }
    }),
  );
  return leftOver;
}

/** Makes `photo` the avatar of user `id` (by id, externalId or email, as `users show`). */
export async function setAvatar(
  deps: AvatarDeps,
  id: string,
  photo: string,
  known?: { user?: UserV3; hash?: string },
): Promise<AvatarChange> {
  const { client } = deps;
  const [user, hash] = await Promise.all([
    known?.user ?? findUser(client, id),
    known?.hash ?? hashPhoto(photo),
  ]);
  const old = user.profile.avatar;
  if (avatarHashOf(old) === hash) return { user, result: 'unchanged', hash, leftOver: [] };

  const { dir, dispose } = await tempDir('roster-avatar-');
  try {
    const { images } = await makeAvatar(photo, dir, { env: deps.env, hash });
    const uploaded: Medium[] = [];
    let updated: UserV3;
    try {
      const media = {} as Record<AvatarImageName, Medium>;
      const sent = await Promise.allSettled(
        AVATAR_IMAGES.map(async (name) => {
          const image = images[name];
          media[name] = await client.uploadMedium({
            filePath: image.path,
            fileName: image.fileName,
            type: 'image',
            signal: deps.signal,
          });
          uploaded.push(media[name]);
        }),
      );
      const failed = sent.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      const url = (name: AvatarImageName) => ({ url: media[name].resourceInfo.url });
      const avatar = { original: url('original'), thumb: url('thumb'), icon: url('icon') };
      // The body type's catch-all (custom fields are strings) hides the named `avatar` key.
      updated = await client.updateUser(user.id, {
        profile: { avatar } as UserUpdateBody['profile'],
      });
    } catch (err) {
      // Nothing points at them yet: take them away again, whatever stopped the change.
      await Promise.allSettled(uploaded.map((m) => client.deleteMedium(m.id)));
      throw err;
    }
    for (const m of uploaded) deps.media.add(m);
    return { user: updated, result: 'set', hash, leftOver: await deleteOld(deps, old) };
  } finally {
    await dispose();
  }
}

/** Clears the avatar of user `id`, then deletes the media it was made of. */
export async function removeAvatar(deps: AvatarDeps, id: string): Promise<AvatarChange> {
  const user = await findUser(deps.client, id);
  const old = user.profile.avatar;
  if (avatarUrls(old).length === 0) return { user, result: 'none', leftOver: [] };
  const updated = await deps.client.updateUser(user.id, { profile: { avatar: null } });
  return { user: updated, result: 'removed', leftOver: await deleteOld(deps, old) };
}
