/** `roster tenants add|set|quota|list`: tenants (host names) of a local data dir, one module per verb. */
import type { Command } from 'commander';
import type { Deps } from '../../../context.js';

type VerbModule = { register(tenants: Command, deps: Deps): unknown };

export const VERBS: (() => Promise<VerbModule>)[] = [
  () => import('./add.js'),
  () => import('./set.js'),
  () => import('./quota.js'),
  () => import('./list.js'),
];

export async function register(program: Command, deps: Deps): Promise<void> {
  const tenants = program
    .command('tenants')
    .description('manage tenants of a local data dir (a tenant is a host name)');
  for (const load of VERBS) await (await load()).register(tenants, deps);
}
