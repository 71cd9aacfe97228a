/** activate and deactivate: the same PUT of `status` over several ids. */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { BATCH_EXIT_HELP, runBatch } from '../shared/batch.js';
import { change, runDryRun } from '../shared/dry-run.js';
import { expandIds, STDIN_IDS_HELP } from '../shared/ids.js';
import { globalsOf } from '../shared/options.js';
import { findUser, userIdOf } from './lookup.js';

export interface SetStatusOptions {
  ids: string[];
  status: 'activated' | 'deactivated';
  /** Say whose status would change, change nothing. */
  dryRun?: boolean;
  globals: GlobalOptions;
}

export function registerStatusVerb(
  users: Command,
  deps: Deps,
  verb: 'activate' | 'deactivate',
  runFn: (opts: SetStatusOptions, deps: Deps) => Promise<void>,
) {
  const status = verb === 'activate' ? 'activated' : 'deactivated';
  users
    .command(verb)
    .description(
      verb === 'activate'
        ? 'activate users (deactivated or pending) by id, externalId or email'
        : 'deactivate users by id, externalId or email (they can no longer sign in)',
    )
    .argument('<ids...>', `user ids, externalIds or emails; ${STDIN_IDS_HELP}`)
    .option('--dry-run', 'show whose status would change; change nothing')
    .addHelpText('after', BATCH_EXIT_HELP)
    .action((ids: string[], opts: { dryRun?: boolean }, cmd: Command) =>
      runFn({ ids, status, ...opts, globals: globalsOf(cmd) }, deps),
    );
}

export async function runSetStatus(opts: SetStatusOptions, deps: Deps): Promise<void> {
  if (opts.dryRun) {
    const verb = opts.status === 'activated' ? 'activate' : 'deactivate';
    await runDryRun(
      opts.ids,
      async (client, id) => {
        const changes = change('status', (await findUser(client, id)).status, opts.status);
        return { action: Object.keys(changes).length ? verb : 'unchanged', changes };
      },
      opts.globals,
      deps,
      { one: 'user', many: 'users' },
    );
    return;
  }
  const ids = await expandIds(opts.ids, deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  await runBatch(
    ids,
    async (id) => {
      const { status } = await client.updateUser(await userIdOf(client, id), {
        status: opts.status,
      });
      if (opts.status === 'activated' && status === 'pending') note(deps.io, stillPending(id));
      return status;
    },
    opts.status,
    opts.globals,
    deps,
    { one: 'user', many: 'users' },
    // The service's rule: one who never signed up goes back to pending. Not one activated.
    (row) =>
      opts.status === 'activated' && row.status === 'pending'
        ? 'still pending (never signed up)'
        : undefined,
  );
}

/** A user who never signed up goes back to pending, not to activated (the service's rule). */
const stillPending = (id: string) =>
  `${id} is pending, not activated: it never signed up. It becomes activated when they accept the invitation, or at once with a one-time password: roster users update ${id} --secret`;
