/** `roster users update <id> --set key=value… --unset key…`: an incremental change. */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { usageError } from '../../errors.js';
import { renderRecord } from '../../output/render.js';
import { STDIN_IDS_HELP } from '../shared/ids.js';
import { collect, fieldsOption, globalsOf } from '../shared/options.js';
import { describeUser, userView } from './format.js';
import { applySets } from './patch.js';
import { SECRET_HELP, secretOf } from './secret.js';
import { validateUserBody } from './validate.js';

export interface UpdateOptions {
  id: string;
  set?: string[];
  unset?: string[];
  /** A one-time password: '-' from stdin, true (the flag alone) asked for on a terminal. */
  secret?: string | true;
  fields?: string;
  /** Show each field's value now → after, change nothing. */
  dryRun?: boolean;
  globals: GlobalOptions;
}

export function register(users: Command, deps: Deps, runFn = runUpdate) {
  fieldsOption(
    users
      .command('update')
      .description('change fields of a user (JSON: the updated v3 user)')
      .argument(
        '<id>',
        `the user id, an externalId or an email; ${STDIN_IDS_HELP} (then one result row each)`,
      )
      .option('--set <key=value>', 'set a field, e.g. profile.position=CTO (repeatable)', collect)
      .option(
        '--unset <key>',
        'clear an optional field, e.g. profile.phoneNumber (repeatable)',
        collect,
      )
      .option('--dry-run', 'show what would change (each field: now → after); change nothing')
      .option(
        '--secret [password]',
        `a one-time password; a pending user is activated with it: ${SECRET_HELP}`,
      ),
  )
    .addHelpText(
      'after',
      `
Keys are dotted paths into the v3 user: email, userName, externalId, role, config.locale,
profile.<field or custom field id>, status (activated|deactivated). Bare profile fields
(firstName, position, …) mean profile.<field>; locale means config.locale.`,
    )
    .action((id: string, opts: Omit<UpdateOptions, 'id' | 'globals'>, cmd: Command) =>
      runFn({ id, ...opts, globals: globalsOf(cmd) }, deps),
    );
}

export async function runUpdate(opts: UpdateOptions, deps: Deps): Promise<void> {
  const view = userView(opts.globals, opts.fields, deps);
  if (!opts.set?.length && !opts.unset?.length && opts.secret === undefined) {
    throw usageError('nothing to change: pass --set key=value, --unset key or --secret');
  }
  const secret = await secretOf(opts.secret, deps);
  const patch = applySets(secret === undefined ? {} : { secret }, opts.set, opts.unset);
  await validateUserBody('update', patch);
  if (opts.id === '-' || opts.dryRun)
    return (await import('./update-run.js')).updateEach(opts, patch, deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const { userIdOf } = await import('./lookup.js');
  const user = await client.updateUser(await userIdOf(client, opts.id), patch);
  note(deps.io, `updated ${describeUser(user)} (${user.id})`);
  await renderRecord(deps.io, view, user);
}
