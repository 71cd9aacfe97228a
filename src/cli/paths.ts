/**
 * Where Roster keeps its files unless told otherwise: the platform's folders as conf finds them
 * (env-paths, conf's own dependency, for the name 'roster' with no suffix): XDG on Linux,
 * Library on macOS, APPDATA/LOCALAPPDATA on Windows. conf is handed the same folder, so the
 * reads that skip conf (config.ts) and its writes name one file. env-paths reads XDG_* from
 * process.env when called and the home directory once, when loaded.
 */
import { join } from 'node:path';
import envPaths from 'env-paths';

const platformPaths = () => envPaths('roster', { suffix: '' });

/** ROSTER_CONFIG_DIR, else the platform's config folder. */
export const configDir = (env: NodeJS.ProcessEnv) =>
  env.ROSTER_CONFIG_DIR || platformPaths().config;

export const configPath = (env: NodeJS.ProcessEnv) => join(configDir(env), 'config.json');

/** `--data DIR`, else ROSTER_DATA_DIR, else the platform's data folder. */
export const dataDirOf = (flag: string | undefined, env: NodeJS.ProcessEnv = process.env) =>
  flag ?? (env.ROSTER_DATA_DIR || platformPaths().data);
