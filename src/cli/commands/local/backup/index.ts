/** `roster backup`: a consistent copy of a SQLite data dir's database, safe while serve runs. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { checkWritable, destinationError } from '../../../../files/destination.js';
import { type Deps, note, print } from '../../../context.js';
import { usageError } from '../../../errors.js';
import { withStore } from '../../../local-store.js';
import { sqliteOf } from '../options.js';

export interface BackupOptions {
  to: string;
  data?: string;
  force?: boolean;
  json?: boolean;
}

export function register(program: Command, deps: Deps, runFn = runBackup) {
  program
    .command('backup')
    .description(
      "write a consistent copy of a data dir's database to a file (safe while serve runs)",
    )
    .requiredOption('--to <file>', 'the file to write (mode 0600)')
    .option('--data <dir>', 'data dir (default: $ROSTER_DATA_DIR or the platform data dir)')
    .option('--force', 'replace the file if it exists')
    .option('--json', 'print {"file","bytes","users","media"}')
    .addHelpText(
      'after',
      "\nUses SQLite's online backup: copying roster.db while serve runs is not safe (its WAL holds\nrecent writes). Media files are not in the backup: copy <data>/media/files too. To restore,\nstop serve and put the file in a data dir as roster.db. For PostgreSQL, use pg_dump.",
    )
    .action((opts: BackupOptions) => runFn(opts, deps));
}

export async function runBackup(opts: BackupOptions, deps: Deps): Promise<void> {
  const target = resolve(opts.to);
  if (existsSync(target) && !opts.force) {
    throw usageError(`${target} exists; give another file name, or --force to replace it`);
  }
  const { backupSqlite } = await import('../../../../store/copy.js');
  // SQLite's backup reports an unwritable file as "unable to open database file": the cause
  // is found first, in words.
  checkWritable(target);
  const result = await withStore(sqliteOf(opts.data, deps), deps, (store) =>
    backupSqlite(store, target).catch((err) => {
      throw destinationError(target, err);
    }),
  );
  if (opts.json) {
    print(deps.io, JSON.stringify({ file: target, ...result }));
    return;
  }
  note(
    deps.io,
    `backed up ${result.users} users and ${result.media} media rows to ${target} (${result.bytes} bytes)`,
  );
  note(deps.io, 'the media files are not in it: back up <data>/media/files as well');
}
