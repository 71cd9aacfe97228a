/** `roster backup`: a consistent copy of a SQLite data dir's database, safe while serve runs. */
import type { Command } from 'commander';
import type { Deps } from '../../../context.js';

export function register(program: Command, deps: Deps) {
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
    .action(async (opts: { to: string; data?: string; force?: boolean; json?: boolean }) => {
      const { runBackup } = await import('../data.js');
      await runBackup(opts.to, opts, deps);
    });
}
