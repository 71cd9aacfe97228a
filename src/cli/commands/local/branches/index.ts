/** `roster branches add|list`: branches of a tenant in a local data dir, one module per verb. */
import type { Command } from 'commander';
import type { Deps } from '../../../context.js';

type VerbModule = { register(branches: Command, deps: Deps): unknown };

export const VERBS: (() => Promise<VerbModule>)[] = [
  () => import('./add.js'),
  () => import('./list.js'),
];

export async function register(program: Command, deps: Deps): Promise<void> {
  const branches = program
    .command('branches')
    .description('manage branches of a tenant (a token sees one branch)');
  for (const load of VERBS) await (await load()).register(branches, deps);
}
