/**
 * The media file names of an avatar: `avatar.<photo hash>.<image>.<jpg|png>`. The hash makes a
 * re-run a no-op on any server (it travels in the name, not in a server-side field), and the
 * shape tells the avatar's media from any other medium.
 */
export type AvatarImageName = 'original' | 'thumb' | 'icon';

const AVATAR_FILE = /^avatar\.([0-9a-f]{16})\.(original|thumb|icon)\.(jpg|png)$/;

export const avatarFileName = (hash: string, name: AvatarImageName, format: 'jpg' | 'png') =>
  `avatar.${hash}.${name}.${format}`;

/** The photo hash in an avatar medium's file name; undefined for any other name. */
export const hashInFileName = (name: string): string | undefined => AVATAR_FILE.exec(name)?.[1];
