/** `roster logout`: forgets a profile's token on this machine (the token stays valid). */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { addressedProfile } from '../../profile-name.js';
import { globalsOf } from '../shared/options.js';

export interface LogoutOptions {
  globals: GlobalOptions;
}

export function register(program: Command, deps: Deps, runFn = runLogout) {
  program
    .command('logout')
    .description('remove a profile and its token from the config file')
    .addHelpText(
      'after',
      '\nRemoves --profile (default: $ROSTER_PROFILE or the current profile). The token itself stays\nvalid on the service until it is revoked (`roster tokens revoke <id>` there).',
    )
    .action((_opts: unknown, cmd: Command) => runFn({ globals: globalsOf(cmd) }, deps));
}

export async function runLogout(opts: LogoutOptions, deps: Deps): Promise<void> {
  const { openConfig } = await import('../../config.js');
  const config = await openConfig(deps.env);
  const name = addressedProfile(config, deps.env, opts.globals);
  if (config.removeProfile(name)) {
    note(deps.io, `removed profile '${name}' from ${config.path}`);
    note(deps.io, 'the token stays valid on the service until revoked');
  } else {
    note(deps.io, `no profile '${name}' in ${config.path}; nothing to do`);
  }
}
