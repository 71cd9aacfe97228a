/** The command table: name → module, and which modules a command line needs. */
import type { Command } from 'commander';
import type { Deps } from '../context.js';

/**
 * Each module exports `register(program, deps)` and keeps heavy imports inside its actions.
 * Only the module of the command being run is loaded (start-up time); help, completion and
 * unknown commands load them all.
 *
 * One convention throughout: a command with subcommands is a folder whose `index.ts` creates it
 * and registers its VERBS, one module per verb (users/, media/, profiles/, auth/, local/tokens/
 * ...); every command or verb module exports `register(parent, deps, runFn = runX)`, whose action
 * only gathers the options, and `runX(opts, deps)`, which does the work (tests call it or pass
 * their own runFn). A long body that needs slow modules sits beside it as `<verb>-run.ts`
 * and is loaded through import(). Helpers shared across groups are in shared/.
 *
 * local/ holds the commands that open a data dir's store themselves (no HTTP, no token); the
 * others talk to the service over the API (profiles and completion only read the CLI's own
 * config and command tree).
 */
export type CommandModule = { register(program: Command, deps: Deps): unknown };
export const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  // On a local data dir:
  serve: () => import('./local/serve/index.js'),
  tokens: () => import('./local/tokens/index.js'),
  tenants: () => import('./local/tenants/index.js'),
  branches: () => import('./local/branches/index.js'),
  backup: () => import('./local/backup/index.js'),
  copy: () => import('./local/copy/index.js'),
  // Over the API (the order is the order of `roster --help`):
  login: () => import('./auth/login.js'),
  logout: () => import('./auth/logout.js'),
  auth: () => import('./auth/index.js'),
  whoami: () => import('./auth/whoami.js'),
  profiles: () => import('./profiles/index.js'),
  users: () => import('./users/index.js'),
  media: () => import('./media/index.js'),
  events: () => import('./events/index.js'),
  webhooks: () => import('./webhooks/index.js'),
  check: () => import('./check/index.js'),
  api: () => import('./api/index.js'),
  completion: () => import('./completion/index.js'),
};
export const ALL = Object.keys(COMMANDS);
/** Global options followed by a value, which is not a command name. */
const VALUE_FLAGS = new Set(['-o', '--output', '--profile', '--base-url', '--region', '--timeout']);

/** The command modules `args` (argv without node and script) needs. */
export function commandsFor(args: string[]): string[] {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (VALUE_FLAGS.has(arg)) i++;
    else if (!arg.startsWith('-'))
      return arg !== 'completion' && Object.hasOwn(COMMANDS, arg) ? [arg] : ALL;
  }
  return args.includes('-V') || args.includes('--version') ? [] : ALL;
}
