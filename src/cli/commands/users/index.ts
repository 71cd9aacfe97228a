/**
 * `roster users …`: one module per verb, each exporting `register(users, deps)`. A new verb
 * (import, export) is one more entry here.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';

type VerbModule = { register(users: Command, deps: Deps): unknown };

export const VERBS: (() => Promise<VerbModule>)[] = [
  () => import('./list.js'),
  () => import('./show.js'),
  () => import('./invite.js'),
  () => import('./update.js'),
  () => import('./activate.js'),
  () => import('./deactivate.js'),
  () => import('./remove.js'),
  () => import('./import.js'),
  () => import('./export.js'),
  () => import('./avatar/index.js'),
  () => import('./history.js'),
];

export async function register(program: Command, deps: Deps): Promise<void> {
  const users = program.command('users').description('list, show, invite, change and remove users');
  for (const load of VERBS) await (await load()).register(users, deps);
}
