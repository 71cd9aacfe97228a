/** Which profile a command acts on: one rule for the API commands and the profile commands. */
import { forbiddenKeyText, isForbiddenKey } from '../contract/safe-keys.js';
import type { ConfigView } from './config.js';
import { usageError } from './errors.js';

/** A profile's name is a key of the config file's profiles: never one reaching a prototype. */
export function checkProfileName(name: string): string {
  if (isForbiddenKey(name)) throw usageError(`profile '${name}': ${forbiddenKeyText(name)}`);
  return name;
}

/** The one named, else --profile, else $ROSTER_PROFILE, else the current one. */
export const addressedProfile = (
  config: Pick<ConfigView, 'currentProfile'>,
  env: NodeJS.ProcessEnv,
  globals: { profile?: string },
  named?: string,
): string =>
  checkProfileName(named ?? globals.profile ?? env.ROSTER_PROFILE ?? config.currentProfile());
