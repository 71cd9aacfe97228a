/**
 * Which media an avatar is made of, found the way any server allows: an avatar holds URLs, a
 * medium has a URL; the two name the same file when their paths match (the query — a
 * signature — differs from one read to the next). Only media named as `avatar set` names them
 * (`avatar.<hash>.<image>.<ext>`) are ever counted as an avatar's, so a URL someone pointed an
 * avatar at by hand (a logo every user shares) is never deleted with it.
 */
import type { ApiClient } from '../../../../client/index.js';
import type { Medium } from '../../../../contract/medium.js';
import type { Avatar } from '../../../../contract/user.js';
import { hashInFileName } from '../../../avatar/file-name.js';

/** Whether a medium's file name is one `avatar set` gives. */
export const isAvatarFileName = (name: string) => hashInFileName(name) !== undefined;

/** A URL's path, decoded; relative URLs resolve against `base`. */
export function pathOf(url: string, base = 'http://localhost/'): string | undefined {
  try {
    return decodeURIComponent(new URL(url, base).pathname);
  } catch {
    return undefined;
  }
}

/** The URLs of an avatar's images (those it has). */
export const avatarUrls = (avatar: Avatar | null | undefined): string[] =>
  avatar
    ? [avatar.original, avatar.thumb, avatar.icon].flatMap((i) => (i?.url ? [i.url] : []))
    : [];

/**
 * The photo hash an avatar was made from, when all its images carry the same one in their
 * file names (the last path segment of each URL); else undefined.
 */
export function avatarHashOf(avatar: Avatar | null | undefined): string | undefined {
  const urls = avatarUrls(avatar);
  if (urls.length !== 3) return undefined;
  const hashes = new Set(urls.map((u) => hashInFileName(pathOf(u)?.split('/').pop() ?? '')));
  const [hash] = hashes;
  return hashes.size === 1 ? hash : undefined;
}

/**
 * Finds avatar media by URL, reading the media list (newest first) only as far as needed and
 * once for a whole run: what one lookup read, the next finds without asking again. Lookups
 * take turns, so concurrent callers share one pass over the list.
 */
export class AvatarMedia {
  private readonly byPath = new Map<string, Medium>();
  private pages: AsyncGenerator<Medium, void, undefined> | undefined;
  private done = false;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: ApiClient,
    private readonly base: string,
  ) {}

  /** Remembers a medium this run uploaded. */
  add(medium: Medium) {
    const path = pathOf(medium.resourceInfo.url, this.base);
    if (path && isAvatarFileName(medium.fileName)) this.byPath.set(path, medium);
  }

  /** Forgets a medium this run deleted. */
  forget(medium: Medium) {
    const path = pathOf(medium.resourceInfo.url, this.base);
    if (path) this.byPath.delete(path);
  }

  /** The avatar media behind `urls` (those that are avatar media of this service). */
  find(urls: string[]): Promise<Medium[]> {
    const next = this.turn.then(() => this.lookup(urls));
    this.turn = next.catch(() => {});
    return next;
  }

  private async lookup(urls: string[]): Promise<Medium[]> {
    const wanted = urls.flatMap((u) => pathOf(u, this.base) ?? []);
    const missing = () => wanted.filter((p) => !this.byPath.has(p));
    if (missing().length > 0 && !this.done) {
      this.pages ??= this.client.iterateMedia(100);
      for (;;) {
        const { value, done } = await this.pages.next();
        if (done) {
          this.done = true;
          break;
        }
        this.add(value);
        if (missing().length === 0) break;
      }
    }
    return wanted.flatMap((p) => this.byPath.get(p) ?? []);
  }
}
