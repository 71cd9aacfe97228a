/** Where Roster keeps its files unless told otherwise. */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The platform's data dir: XDG on Linux, Application Support on macOS, LOCALAPPDATA on Windows. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform) {
  if (env.ROSTER_DATA_DIR) return env.ROSTER_DATA_DIR;
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'roster');
  if (platform === 'win32') {
    return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'roster', 'Data');
  }
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'roster');
}

/** `--data DIR`, else ROSTER_DATA_DIR, else the platform default. */
export const dataDirOf = (flag: string | undefined, env: NodeJS.ProcessEnv = process.env) =>
  flag ?? defaultDataDir(env);
