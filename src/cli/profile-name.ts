/** Which profile a command acts on: one rule for the API commands and the profile commands. */
import type { ConfigView } from './config.js';

/** The one named, else --profile, else $ROSTER_PROFILE, else the current one. */
export const addressedProfile = (
  config: Pick<ConfigView, 'currentProfile'>,
  env: NodeJS.ProcessEnv,
  globals: { profile?: string },
  named?: string,
): string => named ?? globals.profile ?? env.ROSTER_PROFILE ?? config.currentProfile();
