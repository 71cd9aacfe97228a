/**
 * Which CLI profile a `serve` saves its admin token in. A profile records the real path of the
 * data dir it was made for, and serve never overwrites one that belongs to another data dir:
 * its token may be the only copy there is (two serves on one machine, `--like-platform` beside
 * the usual one), nor one `roster login` made (no data dir: it points where its owner logged in,
 * and the copy of a data dir, restored or moved to PostgreSQL, holds the same tokens). `local`
 * without a data dir, as older serves wrote it, is this data dir's when its token works here
 * (a login that chose the name `local` itself is taken for one: the config does not say which).
 */
import { realpathSync } from 'node:fs';
import { type Config, DEFAULT_PROFILE, type Profile } from '../../../config.js';

export interface ServeProfileInput {
  /** The data dir as given; the profile records its real path. */
  dataDir: string;
  baseUrl: string;
  port: number;
  /** The admin token a fresh data dir (or database) was just given. */
  newToken?: string;
  /** Whether a token string is valid in this serve's store. */
  authenticates(token: string): Promise<boolean>;
}

export type ServeProfileResult =
  /** A profile now holds a token for this data dir; `displaced`: who kept `local` (its data dir). */
  | { action: 'saved'; name: string; displaced?: { name: string; dataDir?: string } }
  /** This data dir's profile, pointed at this serve's URL. */
  | { action: 'updated'; name: string }
  /** No profile holds a token for this data dir, and none was made. */
  | { action: 'absent' };

/** The data dir a profile belongs to, undefined when it records none. */
const ownerOf = (p: Profile) => p.dataDir;

/** `local`, else `local-<port>`, else `local-<port>-2`…: the first name no profile has. */
function freeName(profiles: Record<string, Profile>, port: number): string {
  if (!Object.hasOwn(profiles, DEFAULT_PROFILE)) return DEFAULT_PROFILE;
  const base = `${DEFAULT_PROFILE}-${port}`;
  let name = base;
  for (let i = 2; Object.hasOwn(profiles, name); i++) name = `${base}-${i}`;
  return name;
}

export async function saveServeProfile(
  config: Config,
  input: ServeProfileInput,
): Promise<ServeProfileResult> {
  const dataDir = realpathSync(input.dataDir);
  const profiles = config.profiles();
  const entries = Object.entries(profiles);
  // This data dir's own profiles first (`local` before others), then an older serve's `local`.
  const own = entries
    .filter(([, p]) => ownerOf(p) === dataDir)
    .sort(([a], [b]) => Number(b === DEFAULT_PROFILE) - Number(a === DEFAULT_PROFILE));
  const legacy = entries.filter(
    ([name, p]) => name === DEFAULT_PROFILE && ownerOf(p) === undefined,
  );
  for (const [name, p] of [...own, ...legacy]) {
    if (!(await input.authenticates(p.token))) continue;
    config.setProfile(name, { ...p, baseUrl: input.baseUrl, dataDir });
    return { action: 'updated', name };
  }
  // A profile of this data dir whose token no longer works (the data was recreated) is the
  // place for the new token; any other profile is left as it is.
  const stale = own[0]?.[0];
  const token = input.newToken ?? (await tokenFromAnotherProfile(entries, input));
  if (token === undefined) return { action: 'absent' };
  const name = stale ?? freeName(profiles, input.port);
  config.setProfile(name, { baseUrl: input.baseUrl, token, dataDir });
  const holder = profiles[DEFAULT_PROFILE];
  return name === DEFAULT_PROFILE || holder === undefined
    ? { action: 'saved', name }
    : {
        action: 'saved',
        name,
        displaced: { name: DEFAULT_PROFILE, dataDir: ownerOf(holder) },
      };
}

/**
 * A token of another profile (another data dir's, or one `login` made) that works here too: this
 * data dir was restored from a backup, or shares a database. A new profile for this dir gets a
 * copy of it; the other profile is left as it is.
 */
async function tokenFromAnotherProfile(
  entries: [string, Profile][],
  input: ServeProfileInput,
): Promise<string | undefined> {
  for (const [, p] of entries) {
    if (await input.authenticates(p.token)) return p.token;
  }
  return undefined;
}
