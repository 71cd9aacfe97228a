/** `roster profiles use <name>`: make a profile the current one. */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import { globalsOf } from '../shared/options.js';

export function register(profiles: Command, deps: Deps, runFn = runUse) {
  profiles
    .command('use')
    .description('make a profile the current one')
    .argument('<name>', 'profile name')
    .action((name: string, _opts: unknown, cmd: Command) =>
      runFn({ name, globals: globalsOf(cmd) }, deps),
    );
}

export async function runUse(opts: { name: string; globals: GlobalOptions }, deps: Deps) {
  const { openConfig } = await import('../../config.js');
  const config = await openConfig(deps.env);
  if (!config.profile(opts.name)) {
    const known = Object.keys(config.profiles());
    throw new CliError(
      `no profile '${opts.name}' (${known.length ? `profiles: ${known.join(', ')}` : 'none yet'}); create it with \`roster login --profile ${opts.name}\``,
      EXIT.notFound,
    );
  }
  config.useProfile(opts.name);
  note(deps.io, `profile '${opts.name}' is now current`);
  if (deps.env.ROSTER_PROFILE && deps.env.ROSTER_PROFILE !== opts.name) {
    note(
      deps.io,
      `note: ROSTER_PROFILE=${deps.env.ROSTER_PROFILE} still overrides it in this shell`,
    );
  }
}
