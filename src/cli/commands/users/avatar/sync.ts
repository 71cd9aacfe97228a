/** `roster users avatar sync DIR`: every user's avatar from a folder of photos. */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../../context.js';
import { collect, globalsOf } from '../../shared/options.js';
import { parseConcurrency } from '../import/flags.js';

export interface SyncOptions {
  dir: string;
  photoName?: string[];
  concurrency: number;
  dryRun?: boolean;
  report?: string;
  globals: GlobalOptions;
}

const SYNC_HELP = `
A photo is matched to a user by its name without the extension, ignoring case: by default
<email>.jpg or <externalId>.jpg (any of .jpg .jpeg .png .gif .webp .tif .tiff .bmp .heic .heif).
--photo-name sets other names from #email#, #externalId# and #localpart# (the part of the
email before the @); given more than once, the first that names a photo wins.

A photo the user's avatar was already made from is neither processed nor uploaded again, so a
re-run changes nothing. Photos that matched nobody are named at the end; --report FILE also
lists the users still without a photo, and those with no photo here who keep their avatar.
A photo that cannot be read is reported by name and the
others go on (exit 5 at the end; exit 1 when none could be set). Ctrl-C lets the photos in
flight finish or cancel, starts no more, and exits 130.

\`roster users import FILE --photos DIR\` does the same for the users of an import file.

Example: roster users avatar sync ./hr-photos --photo-name '#localpart#' --dry-run`;

export function register(avatar: Command, deps: Deps, runFn = runSync) {
  avatar
    .command('sync')
    .description('set the avatars of all users from a folder of photos named after them')
    .argument('<dir>', 'the folder of photos')
    .option(
      '--photo-name <pattern>',
      "how photos are named: '#email#', '#externalId#', '#localpart#' (repeatable; default: #email# then #externalId#)",
      collect,
    )
    .option('--concurrency <n>', 'photos processed at a time, 1-64', parseConcurrency, 4)
    .option('--dry-run', 'say which avatars would change; upload and change nothing')
    .option(
      '--report <file>',
      'write a JSON report: results, unmatched photos, users without a photo, users keeping theirs',
    )
    .addHelpText('after', SYNC_HELP)
    .action((dir: string, o: Omit<SyncOptions, 'dir' | 'globals'>, cmd: Command) =>
      runFn({ dir, ...o, globals: globalsOf(cmd) }, deps),
    );
}

export async function runSync(opts: SyncOptions, deps: Deps): Promise<void> {
  const { syncAvatars } = await import('./sync-run.js');
  await syncAvatars(opts, deps);
}
