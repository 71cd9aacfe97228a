/**
 * `roster profiles list|use|cdn-auth|set`: the saved profiles (never their tokens), their
 * defaults for new users where the service requires a role and locale, and cdnAuth. One module
 * per verb.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';

type VerbModule = { register(profiles: Command, deps: Deps): unknown };

export const VERBS: (() => Promise<VerbModule>)[] = [
  () => import('./list.js'),
  () => import('./use.js'),
  () => import('./cdn-auth.js'),
  () => import('./set.js'),
];

export async function register(program: Command, deps: Deps): Promise<void> {
  const profiles = program.command('profiles').description('list or switch CLI profiles');
  for (const load of VERBS) await (await load()).register(profiles, deps);
}
