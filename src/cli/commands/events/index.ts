/** `roster events …`: the service's audit log, listed or followed. */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';

type VerbModule = { register(events: Command, deps: Deps): unknown };

export const VERBS: (() => Promise<VerbModule>)[] = [
  () => import('./list.js'),
  () => import('./tail.js'),
];

export async function register(program: Command, deps: Deps): Promise<void> {
  const events = program
    .command('events')
    .description('list or follow every change the service records (who changed what, when)');
  for (const load of VERBS) await (await load()).register(events, deps);
}
