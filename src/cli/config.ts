/**
 * CLI profiles in a conf-backed JSON file, mode 0600 (it holds tokens). ROSTER_CONFIG_DIR moves
 * it, which tests and CI use. conf (and its JSON-schema validator) loads only here, when a
 * command writes the file: reading it needs none of it (config-read.ts).
 */
import { chmodSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type Conf from 'conf';
import {
  type ConfigShape,
  configPath,
  DEFAULT_PROFILE,
  type Profile,
  unreadable,
} from './config-read.js';

export { type ConfigView, DEFAULT_PROFILE, type Profile, readConfig } from './config-read.js';

export async function openConfig(env: NodeJS.ProcessEnv = process.env) {
  const { default: Conf } = await import('conf');
  const dir = dirname(configPath(env));
  const newDir = !existsSync(dir);
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
    throw unreadable(configPath(env), (err as Error).message);
  }
  // Files written by older versions or by hand may be wider; tokens live here. A directory
  // made here is the owner's alone (one given through ROSTER_CONFIG_DIR is left as it is).
  if (existsSync(conf.path)) chmodSync(conf.path, 0o600);
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

export type Config = Awaited<ReturnType<typeof openConfig>>;
