/**
 * `roster auth status` (and `roster whoami`): which profile and base URL a command would use,
 * the token's branch and scopes, and whether the service accepts the token.
 */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { globalsOf } from '../shared/options.js';

export interface AuthStatusOptions {
  globals: GlobalOptions;
}

export function register(auth: Command, deps: Deps, runFn = runAuthStatus) {
  auth
    .command('status')
    .description('profile, base URL, branch, scopes, and whether the token works')
    .action((_opts: unknown, cmd: Command) => runFn({ globals: globalsOf(cmd) }, deps));
}

/** The body is in status-run.ts, loaded only when the command runs (it needs the client). */
export async function runAuthStatus(opts: AuthStatusOptions, deps: Deps): Promise<void> {
  const { authStatus, printAuthStatus } = await import('./status-run.js');
  const status = await authStatus(opts.globals, deps);
  await printAuthStatus(status, opts.globals, deps);
}
