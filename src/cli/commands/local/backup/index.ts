/**
 * `roster backup`: a consistent copy of the SQLite database serve would use, safe while serve
 * runs. The database is chosen as serve chooses it (local-store.ts); on PostgreSQL backup
 * refuses and names pg_dump, rather than copy a SQLite file serve no longer reads.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { checkWritable, destinationError } from '../../../../files/destination.js';
import { type Deps, note, print } from '../../../context.js';
import { usageError } from '../../../errors.js';
import { targetOf, withStore } from '../../../local-store.js';

export interface BackupOptions {
  to: string;
  data?: string;
  database?: string;
  force?: boolean;
  json?: boolean;
}

export function register(program: Command, deps: Deps, runFn = runBackup) {
  program
    .command('backup')
    .description(
      'write a consistent copy of the SQLite database serve uses to a file (safe while serve runs)',
    )
    .requiredOption('--to <file>', 'the file to write (mode 0600)')
    .option('--data <dir>', 'data dir (default: $ROSTER_DATA_DIR or the platform data dir)')
    .option(
      '--database <url>',
      "the database, as serve's --database: sqlite:<dir>, or postgres://… which backup refuses (use pg_dump) (default: $ROSTER_DATABASE_URL, else the data dir's SQLite)",
    )
    .option('--force', 'replace the file if it exists')
    .option('--json', 'print {"file","bytes","users","media"}')
    .addHelpText(
      'after',
      '\nThe database is the one serve would use: --database, else $ROSTER_DATABASE_URL, else the data\ndir\'s SQLite. Uses SQLite\'s online backup: copying roster.db while serve runs is not safe (its\nWAL holds recent writes). Media files are not in the backup: copy <data>/media/files too. To\nrestore, stop serve and put the file in a data dir as roster.db.\nOn PostgreSQL backup refuses (exit 2): use pg_dump, e.g. pg_dump --format=custom --file=roster.dump "$ROSTER_DATABASE_URL".',
    )
    .action((opts: BackupOptions) => runFn(opts, deps));
}

export async function runBackup(opts: BackupOptions, deps: Deps): Promise<void> {
  const { dataDir, target: database } = await targetOf(opts, deps);
  if (database.engine === 'postgres') {
    const { redactUrl } = await import('../../../../store/common/redact.js');
    // The hint runs as printed where the URL is in the environment; a flag's URL is not shown
    // whole (its password).
    const url = opts.database ? "'<the --database URL>'" : '"$ROSTER_DATABASE_URL"';
    throw usageError(
      `the database is PostgreSQL (${redactUrl(database.url)}), which backup does not copy: use pg_dump, e.g. pg_dump --format=custom --file=roster.dump ${url}`,
    );
  }
  const target = resolve(opts.to);
  if (existsSync(target) && !opts.force) {
    throw usageError(`${target} exists; give another file name, or --force to replace it`);
  }
  const { backupSqlite } = await import('../../../../store/copy.js');
  // The data dir's own media files: backup reads rows only, never a bucket ROSTER_BLOBS_URL names.
  const from = { data: opts.data, database: `sqlite:${database.dir}`, blobs: `file:${dataDir}` };
  // SQLite's backup reports an unwritable file as "unable to open database file": the cause
  // is found first, in words.
  checkWritable(target);
  const result = await withStore(from, deps, (store) =>
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
    `backed up ${result.users} user${result.users === 1 ? '' : 's'} and ${result.media} media rows to ${target} (${result.bytes} bytes)`,
  );
  note(deps.io, 'the media files are not in it: back up <data>/media/files as well');
}
