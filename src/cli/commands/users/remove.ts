/** `roster users remove <id…>`: asks on a terminal; without one, refuses unless --yes. */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { safeText } from '../../output/text-safe.js';
import { BATCH_EXIT_HELP, runConfirmedBatch } from '../shared/batch.js';
import { STDIN_IDS_HELP } from '../shared/ids.js';
import { globalsOf } from '../shared/options.js';
import { describeUser } from './format.js';
import { findUser, userIdOf } from './lookup.js';

export interface RemoveOptions {
  ids: string[];
  dryRun?: boolean;
  globals: GlobalOptions;
}

export function register(users: Command, deps: Deps, runFn = runRemove) {
  users
    .command('remove')
    .aliases(['delete', 'rm'])
    .description('remove users by id, externalId or email (they become deleted: 404 from then on)')
    .argument('<ids...>', `user ids, externalIds or emails; ${STDIN_IDS_HELP}`)
    .option('--dry-run', 'show which users would be removed; remove nothing')
    .addHelpText(
      'after',
      `\nAsks for confirmation on a terminal; elsewhere it refuses (exit 2) unless -y/--yes is given.${BATCH_EXIT_HELP}`,
    )
    .action((ids: string[], opts: { dryRun?: boolean }, cmd: Command) =>
      runFn({ ids, ...opts, globals: globalsOf(cmd) }, deps),
    );
}

export const runRemove = (opts: RemoveOptions, deps: Deps) =>
  runConfirmedBatch(opts, deps, {
    verb: 'Remove',
    doing: 'removing',
    done: 'removed',
    noun: { one: 'user', many: 'users' },
    action: async (client, id) => {
      await client.deleteUser(await userIdOf(client, id));
      return 'deleted';
    },
    preview: async (client, id) => {
      await findUser(client, id);
      return { action: 'remove' };
    },
    label: async (client, id) => {
      const user = await findUser(client, id);
      const named = describeUser(user);
      const userId = safeText(user.id);
      // describeUser falls back to the id: never `a [a]`.
      return named === userId ? userId : `${named} [${userId}]`;
    },
  });
