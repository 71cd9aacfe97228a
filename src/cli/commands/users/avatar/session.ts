/** What every avatar verb needs: the client, the avatar-media finder, the env, Ctrl-C. */

import type { ApiClient } from '../../../../client/index.js';
import { type Deps, type GlobalOptions, note } from '../../../context.js';
import { CliError } from '../../../errors.js';
import type { AvatarChange, AvatarDeps } from './apply.js';

export async function avatarSession(
  globals: GlobalOptions,
  deps: Deps,
  extra: { runId?: string } = {},
): Promise<AvatarDeps> {
  const { apiClient } = await import('../../../client.js');
  return avatarSessionOf(await apiClient(globals, deps, extra), deps);
}

/** The same, on a client the command already has (the import's). */
export async function avatarSessionOf(client: ApiClient, deps: Deps): Promise<AvatarDeps> {
  const { AvatarMedia } = await import('./media.js');
  return { client, media: new AvatarMedia(client, `${client.http.baseUrl}/`), env: deps.env };
}

/** A photo's problem as the CLI reports it (the message already names the file). */
export async function asCliError(err: unknown): Promise<unknown> {
  const { PhotoError } = await import('../../../avatar/errors.js');
  return err instanceof PhotoError ? new CliError(err.message) : err;
}

/** Says which of the old avatar's media stayed behind (the change itself stands). */
export function noteLeftOver(deps: Deps, change: AvatarChange) {
  if (change.leftOver.length === 0) return;
  note(deps.io, `the old avatar's media ${change.leftOver.join(', ')} could not be deleted`);
}
