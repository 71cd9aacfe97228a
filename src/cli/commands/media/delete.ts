/** `roster media delete <id…>`: asks on a terminal; without one, refuses unless --yes. */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { BATCH_EXIT_HELP, runConfirmedBatch } from '../shared/batch.js';
import { globalsOf } from '../shared/options.js';

export interface DeleteOptions {
  ids: string[];
  globals: GlobalOptions;
}

export function register(media: Command, deps: Deps, runFn = runDelete) {
  media
    .command('delete')
    .aliases(['remove', 'rm'])
    .description('delete media by id (the files are removed; their URLs stop working)')
    .argument('<ids...>', 'medium ids')
    .addHelpText(
      'after',
      `\nAsks for confirmation on a terminal; elsewhere it refuses (exit 2) unless -y/--yes is given.${BATCH_EXIT_HELP}`,
    )
    .action((ids: string[], _opts: unknown, cmd: Command) =>
      runFn({ ids, globals: globalsOf(cmd) }, deps),
    );
}

export const runDelete = (opts: DeleteOptions, deps: Deps) =>
  runConfirmedBatch(opts, deps, {
    verb: 'Delete',
    doing: 'deleting',
    done: 'deleted',
    noun: { one: 'medium', many: 'media' },
    action: async (client, id) => {
      await client.deleteMedium(id);
      return 'deleted';
    },
  });
