/**
 * `roster auth status`: the credentials in use, one module per verb. The other credential
 * commands live beside it as top-level commands of their own: login.ts, logout.ts, whoami.ts.
 */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';

type VerbModule = { register(auth: Command, deps: Deps): unknown };

export const VERBS: (() => Promise<VerbModule>)[] = [() => import('./status.js')];

export async function register(program: Command, deps: Deps): Promise<void> {
  const auth = program.command('auth').description('the credentials in use');
  for (const load of VERBS) await (await load()).register(auth, deps);
}
