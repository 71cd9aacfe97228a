/** `roster copy`: a SQLite data dir's data into PostgreSQL, to move a deployment onto it. */
import type { Command } from 'commander';
import type { Deps } from '../../../context.js';

export function register(program: Command, deps: Deps) {
  program
    .command('copy')
    .description(
      "copy a data dir's tenants, tokens, users and media rows into PostgreSQL (and its media files into a bucket)",
    )
    .requiredOption('--to <url>', 'the PostgreSQL database, postgres://user:pass@host:5432/db')
    .option(
      '--blobs <url>',
      "also copy the media files into this bucket, s3://bucket/prefix, the one serve's --blobs will name (default: $ROSTER_BLOBS_URL; without either the files stay in the data dir)",
    )
    .option('--data <dir>', 'data dir (default: $ROSTER_DATA_DIR or the platform data dir)')
    .option('--json', 'print the rows copied per table')
    .addHelpText(
      'after',
      '\nIds are kept, so tokens, user ids and media URLs stay valid. Run it again to resume an\ninterrupted copy or to catch up with changes since; the database must be empty or an earlier\ncopy of this data dir. Counts are verified at the end. Stop serve on the data dir for the\nfinal run, then start it with --database <url> on the same --data (media files stay there),\nor, after a copy with --blobs, with --database <url> --blobs <bucket URL> anywhere.\nA media file already in the bucket with the same size is not sent again.',
    )
    .action(async (opts: { to: string; data?: string; blobs?: string; json?: boolean }) => {
      const { runCopy } = await import('../data.js');
      await runCopy(opts, deps);
    });
}
