/** `roster tokens create|list|revoke`: API tokens of a local data dir, one module per verb. */
import type { Command } from 'commander';
import type { Deps } from '../../../context.js';

type VerbModule = { register(tokens: Command, deps: Deps): unknown };

export const VERBS: (() => Promise<VerbModule>)[] = [
  () => import('./create.js'),
  () => import('./list.js'),
  () => import('./revoke.js'),
];

export async function register(program: Command, deps: Deps): Promise<void> {
  const tokens = program.command('tokens').description('manage API tokens of a local data dir');
  for (const load of VERBS) await (await load()).register(tokens, deps);
}
