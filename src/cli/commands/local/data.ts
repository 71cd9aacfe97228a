/** Run functions of `roster backup` and `roster copy` (local admin on a data dir, no HTTP). */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Deps, note, print } from '../../context.js';
import { CliError, usageError } from '../../errors.js';
import { openLocalStore, type StoreOptions, withStore } from '../../local-store.js';
import { dataDirOf } from '../../paths.js';

/** The data dir's own SQLite, whatever ROSTER_DATABASE_URL says: what both commands read. */
const sqliteOf = (data: string | undefined, deps: Deps): StoreOptions => ({
  data,
  database: `sqlite:${dataDirOf(data, deps.env)}`,
  blobs: `file:${dataDirOf(data, deps.env)}`,
});

export async function runBackup(
  to: string,
  opts: { data?: string; force?: boolean; json?: boolean },
  deps: Deps,
) {
  const target = resolve(to);
  if (existsSync(target) && !opts.force) {
    throw usageError(`${target} exists; give another file name, or --force to replace it`);
  }
  const { backupSqlite } = await import('../../../store/copy.js');
  const result = await withStore(sqliteOf(opts.data, deps), deps, (store) =>
    backupSqlite(store, target),
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

export async function runCopy(
  opts: { data?: string; to: string; blobs?: string; json?: boolean },
  deps: Deps,
) {
  if (!/^postgres(ql)?:\/\//i.test(opts.to)) {
    throw usageError(
      `--to: '${opts.to}' is not a PostgreSQL URL (postgres://user:pass@host:5432/db)`,
    );
  }
  const { copyBlobs, copySqliteToPostgres, CopyError } = await import('../../../store/copy.js');
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
