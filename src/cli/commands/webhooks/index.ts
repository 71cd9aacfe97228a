/** `roster webhooks …`: the service's webhook endpoints, and a local receiver to try them on. */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';

type VerbModule = { register(webhooks: Command, deps: Deps): unknown };

export const VERBS: (() => Promise<VerbModule>)[] = [
  () => import('./add.js'),
  () => import('./list.js'),
  () => import('./show.js'),
  () => import('./update.js'),
  () => import('./remove.js'),
  () => import('./send-test.js'),
  () => import('./deliveries.js'),
  () => import('./retry.js'),
  () => import('./rotate-secret.js'),
  () => import('./listen.js'),
];

export async function register(program: Command, deps: Deps): Promise<void> {
  const webhooks = program
    .command('webhooks')
    .description('signed deliveries of events to your own receivers, and a local one to try them');
  for (const load of VERBS) await (await load()).register(webhooks, deps);
}
