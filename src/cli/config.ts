/**
 * CLI profiles in one JSON file, mode 0600 (it holds tokens), where paths.ts says. Reading
 * parses the file here, because loading conf (and its JSON-schema validator) costs a one-shot
 * command more start-up time than its request; writing goes through conf, loaded only then.
 */
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import type Conf from 'conf';
import { forbiddenKeyIn, forbiddenKeyText } from '../contract/safe-keys.js';
import { DestinationError, destinationError } from '../files/destination.js';
import { CliError, usageError } from './errors.js';
import { configDir, configPath } from './paths.js';
import { checkProfileName } from './profile-name.js';

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
  /**
   * The real path of the data dir whose `serve` saved this profile: serve never overwrites a
   * profile of another data dir. Absent in profiles from `login` and older versions.
   */
  dataDir?: string;
}

interface ConfigShape {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'local';

const unreadable = (path: string, why: string) =>
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

function viewOf(path: string, data: ConfigShape): ConfigView {
  return {
    path,
    profiles: () => data.profiles,
    profile: (name) => (Object.hasOwn(data.profiles, name) ? data.profiles[name] : undefined),
    currentProfile: () => data.currentProfile ?? DEFAULT_PROFILE,
  };
}

/** A config file holding `__proto__`, `constructor` or `prototype` as a key (edited by hand). */
function refuseForbidden(path: string, data: unknown) {
  const bad = forbiddenKeyIn(data);
  if (bad !== undefined) {
    throw usageError(`the config file ${path}: ${forbiddenKeyText(bad)}; remove it from the file`);
  }
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
  refuseForbidden(path, data);
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

/** The config file for commands that change it: conf writes it (atomically, mode 0600). */
export async function openConfig(env: NodeJS.ProcessEnv = process.env) {
  const { default: Conf } = await import('conf');
  const dir = configDir(env);
  const newDir = !existsSync(dir);
  let conf: Conf<ConfigShape>;
  try {
    conf = new Conf<ConfigShape>({
      // The folder readConfig reads: conf would find the same one (env-paths), given to it so
      // that there is one rule.
      cwd: dir,
      configName: 'config',
      configFileMode: 0o600,
      defaults: { profiles: {} },
      accessPropertiesByDotNotation: false,
    });
  } catch (err) {
    // conf makes the folder first: a folder that cannot be made is a write failure.
    const cannot = destinationError(configPath(env), err);
    throw cannot instanceof DestinationError
      ? cannot
      : unreadable(configPath(env), (err as Error).message);
  }
  /** conf writes whole (temp file, rename); its failure names the config file and the cause. */
  const write = (change: () => void) => {
    try {
      change();
    } catch (err) {
      throw destinationError(conf.path, err);
    }
  };
  // Files written by older versions or by hand may be wider; tokens live here. A directory
  // made here is the owner's alone (one given through ROSTER_CONFIG_DIR is left as it is).
  if (existsSync(conf.path)) chmodSync(conf.path, 0o600);
  refuseForbidden(conf.path, conf.store);
  if (newDir && existsSync(dir)) chmodSync(dir, 0o700);
  return {
    path: conf.path,
    profiles: (): Record<string, Profile> => conf.get('profiles'),
    profile: (name: string): Profile | undefined => {
      const profiles = conf.get('profiles');
      return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
    },
    currentProfile: (): string => conf.get('currentProfile') ?? DEFAULT_PROFILE,
    setProfile(name: string, profile: Profile) {
      checkProfileName(name);
      write(() => conf.set('profiles', { ...conf.get('profiles'), [name]: profile }));
    },
    removeProfile(name: string): boolean {
      const { [name]: removed, ...rest } = conf.get('profiles');
      write(() => {
        conf.set('profiles', rest);
        if (conf.get('currentProfile') === name) conf.delete('currentProfile');
      });
      return removed !== undefined;
    },
    useProfile(name: string) {
      checkProfileName(name);
      write(() => conf.set('currentProfile', name));
    },
  };
}

export type Config = Awaited<ReturnType<typeof openConfig>>;
