/**
 * Which photo of a folder is whose: a photo's name without its extension is compared,
 * case-insensitively, with what `--photo-name` patterns make of each user (`#email#`,
 * `#externalId#`, `#localpart#`, the part of the email before the @).
 */
import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { UserV3 } from '../../../../contract/user.js';
import { PHOTO_EXTENSIONS } from '../../../avatar/photo.js';
import { usageError } from '../../../errors.js';

export const DEFAULT_PATTERNS = ['#email#', '#externalId#'];
const FIELDS: Record<string, (u: UserV3) => string | undefined> = {
  email: (u) => u.email?.value,
  externalid: (u) => u.externalId ?? undefined,
  localpart: (u) => u.email?.value.split('@')[0],
};

/** `--photo-name` as a function of a user: the photo name it expects, or undefined. */
export function compilePattern(pattern: string): (u: UserV3) => string | undefined {
  const parts = pattern.split(/(#[A-Za-z]+#)/);
  const placeholders = parts.filter((p) => /^#[A-Za-z]+#$/.test(p));
  const unknown = placeholders.filter((p) => !(p.slice(1, -1).toLowerCase() in FIELDS));
  if (placeholders.length === 0 || unknown.length > 0) {
    throw usageError(
      `--photo-name '${pattern}': use #email#, #externalId# or #localpart# (e.g. '#externalId#' or 'photo-#localpart#')`,
    );
  }
  return (u) => {
    let out = '';
    for (const part of parts) {
      if (!/^#[A-Za-z]+#$/.test(part)) out += part;
      else {
        const value = FIELDS[part.slice(1, -1).toLowerCase()]!(u);
        if (!value) return undefined;
        out += value;
      }
    }
    return out.toLowerCase();
  };
}

export interface PhotoFolder {
  /** Lower-cased name without extension → the photo's path. */
  byName: Map<string, string>;
  /** Photos that share a name (`ann.jpg`, `ann.png`), by name: none of them is used. */
  ambiguous: string[][];
}

/** The photos directly in `dir` (any supported extension, any case). */
export async function readPhotoFolder(dir: string): Promise<PhotoFolder> {
  const entries = await readdir(dir, { withFileTypes: true });
  const groups = new Map<string, string[]>();
  for (const e of entries) {
    const ext = extname(e.name);
    if (!e.isFile() || !(PHOTO_EXTENSIONS as readonly string[]).includes(ext.toLowerCase()))
      continue;
    const key = e.name.slice(0, -ext.length).toLowerCase();
    groups.set(key, [...(groups.get(key) ?? []), join(dir, e.name)]);
  }
  const byName = new Map<string, string>();
  const ambiguous: string[][] = [];
  for (const [key, paths] of groups) {
    if (paths.length === 1) byName.set(key, paths[0]!);
    else ambiguous.push(paths.sort());
  }
  return { byName, ambiguous };
}

/** The photo for `user`: the first pattern that names a photo in the folder. */
export function photoFor(
  user: UserV3,
  patterns: ((u: UserV3) => string | undefined)[],
  folder: PhotoFolder,
): string | undefined {
  for (const name of patterns) {
    const key = name(user);
    const path = key === undefined ? undefined : folder.byName.get(key);
    if (path) return path;
  }
  return undefined;
}
