/**
 * Reading the config file without conf: commands that only need a profile (every API command)
 * parse the JSON themselves, because loading conf (and its JSON-schema validator) costs more
 * start-up time than the request. Writes go through conf (config.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './errors.js';

export interface Profile {
  baseUrl: string;
  baseUrlDe?: string;
  token: string;
  vendor?: string;
  /**
   * Hosts besides the API's origin that media downloads may send the token to (cdnAuth;
   * client/cdn-auth.ts). Absent: off.
   */
  cdnAuth?: string[];
  /** Role of new users where the service requires one (the platform's user-invite.v2). */
  role?: string;
  /** Locale (xx_YY) of new users where the service requires one. */
  locale?: string;
}

export interface ConfigShape {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'local';

/** Where conf keeps the file (its env-paths rules), or under ROSTER_CONFIG_DIR. */
export function configPath(env: NodeJS.ProcessEnv) {
  if (env.ROSTER_CONFIG_DIR) return join(env.ROSTER_CONFIG_DIR, 'config.json');
  const home = homedir();
  if (process.platform === 'darwin')
    return join(home, 'Library', 'Preferences', 'roster', 'config.json');
  if (process.platform === 'win32') {
    return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'roster', 'Config', 'config.json');
  }
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'roster', 'config.json');
}

export const unreadable = (path: string, why: string) =>
  new CliError(
    `the config file ${path} cannot be read (${why}); fix or delete it, then run \`roster login\``,
  );

/** What reading needs: the profiles and which one is current. */
export interface ConfigView {
  path: string;
  profiles(): Record<string, Profile>;
  profile(name: string): Profile | undefined;
  currentProfile(): string;
  /** Set when the file is readable or writable by others (it holds tokens). */
  looseMode?: string;
}

export function viewOf(path: string, data: ConfigShape): ConfigView {
  return {
    path,
    profiles: () => data.profiles,
    profile: (name) => (Object.hasOwn(data.profiles, name) ? data.profiles[name] : undefined),
    currentProfile: () => data.currentProfile ?? DEFAULT_PROFILE,
  };
}

/** The config file as it is on disk; a missing file is an empty config. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ConfigView {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return viewOf(path, { profiles: {} });
    throw unreadable(path, (err as Error).message);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw unreadable(path, (err as Error).message);
  }
  const shape = data as Partial<ConfigShape> | null;
  if (typeof shape !== 'object' || shape === null || Array.isArray(shape)) {
    throw unreadable(path, 'not a JSON object');
  }
  const profiles = shape.profiles ?? {};
  if (typeof profiles !== 'object' || profiles === null) {
    throw unreadable(path, '"profiles" is not an object');
  }
  const view = viewOf(path, { currentProfile: shape.currentProfile, profiles });
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) view.looseMode = mode.toString(8).padStart(4, '0');
  return view;
}
