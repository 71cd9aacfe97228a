/** `roster copy`: a SQLite data dir's data into PostgreSQL, to move a deployment onto it. */
import type { Command } from 'commander';
import { type Deps, note, print } from '../../../context.js';
import { CliError, usageError } from '../../../errors.js';
import { openLocalStore, withStore } from '../../../local-store.js';
import { dataDirOf } from '../../../paths.js';
import { sqliteOf } from '../options.js';

export interface CopyOptions {
  to: string;
  data?: string;
  blobs?: string;
  json?: boolean;
}

export function register(program: Command, deps: Deps, runFn = runCopy) {
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
      '\nIds are kept, so tokens, user ids and media URLs stay valid. Run it again to resume an\ninterrupted copy or to catch up with changes since; the database must be empty or an earlier\ncopy of this data dir that has had no writes of its own since (serve on it): a copy would\nrevert them, so it refuses (exit 1, nothing written). Counts are verified at the end. Stop serve on the data dir for the\nfinal run, then start it with --database <url> on the same --data (media files stay there),\nor, after a copy with --blobs, with --database <url> --blobs <bucket URL> anywhere.\nA media file already in the bucket with the same size is not sent again.',
    )
    .action((opts: CopyOptions) => runFn(opts, deps));
}

export async function runCopy(opts: CopyOptions, deps: Deps): Promise<void> {
  if (!/^postgres(ql)?:\/\//i.test(opts.to)) {
    throw usageError(
      `--to: '${opts.to}' is not a PostgreSQL URL (postgres://user:pass@host:5432/db)`,
    );
  }
  const { copyBlobs, copySqliteToPostgres, CopyError } = await import('../../../../store/copy.js');
  const blobs = opts.blobs ?? (deps.env.ROSTER_BLOBS_URL || undefined);
  const counts = await withStore(sqliteOf(opts.data, deps), deps, async (source) => {
    const target = await openLocalStore({ data: opts.data, database: opts.to, blobs }, deps);
    const shown = new Map<string, number>();
    try {
      // Files before rows: a row in the database never names a file the bucket lacks.
      const files = blobs
        ? await copyBlobs(source.blobs, target.blobs, (copied, skipped) => {
            const done = copied + skipped;
            if (!opts.json && done % 100 === 0) {
              note(deps.io, `media files: ${done} (${skipped} already there)`);
            }
          })
        : undefined;
      const rows = await copySqliteToPostgres(source, target, (table, copied, total) => {
        // A line per tenth of a table, and its end: alive without flooding a log.
        const step = Math.floor((copied / Math.max(total, 1)) * 10);
        if (copied < total && shown.get(table) === step) return;
        shown.set(table, step);
        if (!opts.json) note(deps.io, `${table}: ${copied}/${total}`);
      });
      return files ? { ...rows, files: files.files, filesSent: files.copied } : rows;
    } catch (err) {
      if (err instanceof CopyError) throw new CliError(err.message);
      throw err;
    } finally {
      await target.close();
    }
  });
  if (opts.json) {
    print(deps.io, JSON.stringify(counts));
    return;
  }
  note(
    deps.io,
    `copied and verified: ${Object.entries(counts)
      .map(([t, n]) => `${n} ${t}`)
      .join(', ')}`,
  );
  note(
    deps.io,
    blobs
      ? `next: roster serve --data <a data dir for scratch> --database <the URL> --blobs ${blobs}`
      : `next: roster serve --data ${dataDirOf(opts.data, deps.env)} --database <the URL>  (the media files stay in the data dir)`,
  );
}
