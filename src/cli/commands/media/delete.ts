/** `roster media delete <id…>`: asks on a terminal; without one, refuses unless --yes. */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { BATCH_EXIT_HELP, runConfirmedBatch } from '../shared/batch.js';
import { STDIN_IDS_HELP } from '../shared/ids.js';
import { globalsOf } from '../shared/options.js';

export interface DeleteOptions {
  ids: string[];
  dryRun?: boolean;
  globals: GlobalOptions;
}

export function register(media: Command, deps: Deps, runFn = runDelete) {
  media
    .command('delete')
    .aliases(['remove', 'rm'])
    .description('delete media by id (the files are removed; their URLs stop working)')
    .argument('<ids...>', `medium ids; ${STDIN_IDS_HELP}`)
    .option('--dry-run', 'show which media would be deleted; delete nothing')
    .addHelpText(
      'after',
      `\nAsks for confirmation on a terminal; elsewhere it refuses (exit 2) unless -y/--yes is given.${BATCH_EXIT_HELP}`,
    )
    .action((ids: string[], opts: { dryRun?: boolean }, cmd: Command) =>
      runFn({ ids, ...opts, globals: globalsOf(cmd) }, deps),
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
    preview: async (client, id) => {
      await client.getMedium(id);
      return { action: 'delete' };
    },
  });
