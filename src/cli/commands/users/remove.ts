/** `roster users remove <id…>`: asks on a terminal; without one, refuses unless --yes. */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { confirmOrRefuse, globalsOf } from '../options.js';
import { BATCH_EXIT_HELP, runBatch } from './batch.js';

export interface RemoveOptions {
  ids: string[];
  globals: GlobalOptions;
}

export function register(users: Command, deps: Deps, runFn = runRemove) {
  users
    .command('remove')
    .description('remove users by id or externalId (they become deleted: 404 from then on)')
    .argument('<ids...>', 'user ids or externalIds')
    .addHelpText(
      'after',
      `\nAsks for confirmation on a terminal; elsewhere it refuses (exit 2) unless -y/--yes is given.${BATCH_EXIT_HELP}`,
    )
    .action((ids: string[], _opts: unknown, cmd: Command) =>
      runFn({ ids, globals: globalsOf(cmd) }, deps),
    );
}

export async function runRemove(opts: RemoveOptions, deps: Deps): Promise<void> {
  const ids = [...new Set(opts.ids)];
  const what = ids.length === 1 ? `user ${ids[0]}` : `${ids.length} users (${ids.join(', ')})`;
  const confirmed = await confirmOrRefuse(
    deps,
    opts.globals,
    `Remove ${what}?`,
    `not removing ${what}`,
  );
  if (!confirmed) {
    note(deps.io, 'nothing removed');
    return;
  }
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  await runBatch(
    ids,
    async (id) => {
      await client.deleteUser(id);
      return 'deleted';
    },
    'removed',
    opts.globals,
    deps,
  );
}
