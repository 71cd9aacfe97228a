/** What every avatar verb needs: the client, the avatar-media finder, the env, Ctrl-C. */
import type { Deps, GlobalOptions } from '../../../context.js';
import { CliError } from '../../../errors.js';
import type { AvatarDeps } from './apply.js';

export async function avatarSession(globals: GlobalOptions, deps: Deps): Promise<AvatarDeps> {
  const { apiClient } = await import('../../../client.js');
  const { AvatarMedia } = await import('./media.js');
  const client = await apiClient(globals, deps);
  return { client, media: new AvatarMedia(client, `${client.http.baseUrl}/`), env: deps.env };
}

/** A photo's problem as the CLI reports it (the message already names the file). */
export async function asCliError(err: unknown): Promise<unknown> {
  const { PhotoError } = await import('../../../avatar/errors.js');
  return err instanceof PhotoError ? new CliError(err.message) : err;
}
