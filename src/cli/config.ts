/**
 * CLI profiles in a conf-backed JSON file, mode 0600 (it holds tokens). ROSTER_CONFIG_DIR moves
 * it, which tests and CI use.
 */
import { chmodSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import { CliError } from './errors.js';

export interface Profile {
  baseUrl: string;
  baseUrlDe?: string;
  token: string;
  vendor?: string;
}

interface ConfigShape {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'local';

/** Where conf puts the file (its env-paths rules), for messages when conf cannot open it. */
function expectedPath(env: NodeJS.ProcessEnv) {
  if (env.ROSTER_CONFIG_DIR) return join(env.ROSTER_CONFIG_DIR, 'config.json');
  const home = homedir();
  if (process.platform === 'darwin')
    return join(home, 'Library', 'Preferences', 'roster', 'config.json');
  if (process.platform === 'win32') {
    return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'roster', 'Config', 'config.json');
  }
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'roster', 'config.json');
}

export function openConfig(env: NodeJS.ProcessEnv = process.env) {
  let conf: Conf<ConfigShape>;
  try {
    conf = new Conf<ConfigShape>({
      projectName: 'roster',
      projectSuffix: '',
      ...(env.ROSTER_CONFIG_DIR ? { cwd: env.ROSTER_CONFIG_DIR } : {}),
      configFileMode: 0o600,
      defaults: { profiles: {} },
      accessPropertiesByDotNotation: false,
    });
  } catch (err) {
    throw new CliError(
      `the config file ${expectedPath(env)} cannot be read (${(err as Error).message}); fix or delete it, then run \`roster login\``,
    );
  }
  // Files written by older versions or by hand may be wider; tokens live here.
  if (existsSync(conf.path)) chmodSync(conf.path, 0o600);
  return {
    path: conf.path,
    profiles: (): Record<string, Profile> => conf.get('profiles'),
    profile: (name: string): Profile | undefined => conf.get('profiles')[name],
    currentProfile: (): string => conf.get('currentProfile') ?? DEFAULT_PROFILE,
    setProfile(name: string, profile: Profile) {
      conf.set('profiles', { ...conf.get('profiles'), [name]: profile });
    },
    removeProfile(name: string): boolean {
      const { [name]: removed, ...rest } = conf.get('profiles');
      conf.set('profiles', rest);
      if (conf.get('currentProfile') === name) conf.delete('currentProfile');
      return removed !== undefined;
    },
    useProfile(name: string) {
      conf.set('currentProfile', name);
    },
  };
}

export type Config = ReturnType<typeof openConfig>;
