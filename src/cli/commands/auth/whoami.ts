/** `roster whoami`: the same as `roster auth status`, under the name gh, aws and kubectl use. */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { globalsOf } from '../shared/options.js';
import { runAuthStatus } from './status.js';

export function register(program: Command, deps: Deps, runFn = runAuthStatus) {
  program
    .command('whoami')
    .description('the same as `roster auth status`')
    .action((_opts: unknown, cmd: Command) => runFn({ globals: globalsOf(cmd) }, deps));
}
