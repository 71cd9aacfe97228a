/**
 * `roster users avatar …`: avatars made from photos. One module per verb, as for `users`; the
 * photo → images pipeline is src/cli/avatar/, the upload-then-update change is apply.ts.
 */
import type { Command } from 'commander';
import type { Deps } from '../../../context.js';

type VerbModule = { register(avatar: Command, deps: Deps): unknown };

export const VERBS: (() => Promise<VerbModule>)[] = [
  () => import('./set.js'),
  () => import('./show.js'),
  () => import('./remove.js'),
  () => import('./sync.js'),
];

export async function register(users: Command, deps: Deps): Promise<void> {
  const avatar = users
    .command('avatar')
    .description('set, show and remove avatars made from photos');
  for (const load of VERBS) await (await load()).register(avatar, deps);
}
