/**
 * The start-up sweep that makes the data dir consistent after a crash: temp files go, blobs no
 * row names go, and a row whose file is gone is deleted (it could only ever answer 404 on the
 * CDN); a row whose preview alone is gone keeps its medium and loses the preview. Runs before
 * the server listens, so no upload is in flight; one server per data dir.
 *
 * A crash leaves a few strays, never most of the store: a missing or unreadable blob root, or a
 * plan to remove more than a tenth of the rows or files, means the storage is not what the
 * database describes (an unmounted volume, a restore in progress). The sweep then refuses and
 * changes nothing, unless told `forceSweep`.
 *
 * The store says what other processes may be doing meanwhile (`store.policy`). With a database
 * other processes share and files on this process's own disk, a row whose file is not here may
 * be another replica's: rows are then left alone and only this data dir's temp files and files
 * no row names are swept. With an object store that replicas share, an object without a row may
 * be another replica's upload about to commit: only objects older than a grace period go
 * (`graceMs`), and one replica sweeps at a time (the store's sweep lock; the others skip it,
 * all but their own temp files).
 */
import type { BlobStore } from '../../store/blobs/blob-store.js';
import { systemAudit } from '../../store/common/event-rows.js';
import type { Store } from '../../store/store.js';

export interface SweepResult {
  tempFiles: number;
  /** Uploads into an object store that a crashed replica began and never finished. */
  unfinishedUploads: number;
  orphanBlobs: number;
  rowsWithoutFile: number;
  previewsLost: number;
}

/** The sweep would do harm; the message says why and how to proceed. */
export class SweepRefusedError extends Error {
  override name = 'SweepRefusedError';
}

/** At most this many items, or this share of them, may go without --force-sweep. */
const FREE_ITEMS = 10;
const FREE_SHARE = 0.1;
const tooMany = (n: number, of: number) => n > FREE_ITEMS && n > of * FREE_SHARE;

async function checkRoot(blobs: BlobStore, rows: number) {
  const { state, where } = await blobs.inspectRoot();
  // An object store is configured on purpose: a missing bucket or refused credentials are
  // mistakes to fix before serving, whatever the database holds.
  if (blobs.shared && state !== 'present') {
    throw new SweepRefusedError(
      state === 'missing'
        ? `the media bucket ${where} does not exist: create it, or fix --blobs / ROSTER_BLOBS_URL`
        : `the media bucket ${where} cannot be read: check ROSTER_S3_ENDPOINT, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`,
    );
  }
  if (state === 'unreadable') {
    throw new SweepRefusedError(
      `the media files directory ${where} is not readable: check the volume and its permissions`,
    );
  }
  if (state === 'missing' && rows > 0) {
    throw new SweepRefusedError(
      `the media files directory ${where} is missing, but ${rows} media rows name files in it: ` +
        'mount or restore it, then start again (nothing was changed)',
    );
  }
}

export async function sweepMedia(
  store: Store,
  blobs: BlobStore,
  log: (line: string) => void,
  {
    force = false,
    graceMs = SHARED_GRACE_MS,
    now = Date.now,
  }: {
    force?: boolean;
    graceMs?: number;
    now?: () => number;
  } = {},
): Promise<SweepResult> {
  const release = await store.trySweepLock();
  if (!release) {
    // The scratch for uploads in flight is in this process's own data dir (one serve per data
    // dir), not shared: it is emptied, and made on a first start, whoever sweeps the rest.
    const tempFiles = await blobs.sweepTemp();
    log('sweep: another replica is sweeping the media; skipped');
    return {
      tempFiles,
      unfinishedUploads: 0,
      orphanBlobs: 0,
      rowsWithoutFile: 0,
      previewsLost: 0,
    };
  }
  try {
    const { sharedDatabase, sharedBlobs } = store.policy;
    return await sweepLocked(store, blobs, log, {
      force,
      // Local files and a shared database: other replicas' rows name files not kept here.
      sharedRows: sharedDatabase && !sharedBlobs,
      // A shared object store: another replica's upload may be between its object and row.
      sharedFiles: sharedBlobs,
      graceMs,
      now,
    });
  } finally {
    await release();
  }
}

/** An object without a row younger than this may be an upload about to commit elsewhere. */
export const SHARED_GRACE_MS = 60 * 60 * 1000;

async function sweepLocked(
  store: Store,
  blobs: BlobStore,
  log: (line: string) => void,
  opts: {
    force: boolean;
    sharedRows: boolean;
    sharedFiles: boolean;
    graceMs: number;
    now: () => number;
  },
): Promise<SweepResult> {
  const { force, sharedRows, sharedFiles } = opts;
  const rows = await store.media.allKeys();
  await checkRoot(blobs, sharedRows ? 0 : rows.length);
  const present = new Set<string>();
  for await (const key of blobs.keys()) present.add(key);

  const lostRows = sharedRows ? [] : rows.filter((row) => !present.has(row.blob_key));
  const named = new Set<string>();
  for (const row of rows) {
    if (!present.has(row.blob_key)) continue;
    named.add(row.blob_key);
    if (row.preview_key && present.has(row.preview_key)) named.add(row.preview_key);
  }
  let orphans = [...present].filter((key) => !named.has(key));
  if (sharedFiles) {
    const old: string[] = [];
    for (const key of orphans) {
      const at = await blobs.modifiedAt(key);
      if (at !== undefined && opts.now() - at > opts.graceMs) old.push(key);
    }
    orphans = old;
  }
  if (!force && (tooMany(lostRows.length, rows.length) || tooMany(orphans.length, present.size))) {
    throw new SweepRefusedError(
      `the start-up sweep would remove ${lostRows.length} of ${rows.length} media rows and ` +
        `${orphans.length} of ${present.size} media files; that is not what a crash leaves, so ` +
        'check the media storage. Start with --force-sweep if they really are gone (nothing was changed)',
    );
  }

  const tempFiles = await blobs.sweepTemp();
  // Without other writers (one server on its own store) every unfinished upload is a crash's.
  const unfinishedUploads = await blobs.abortUnfinished(
    sharedFiles ? opts.now() - opts.graceMs : opts.now(),
  );
  for (const row of lostRows) {
    await store.media.remove(row.rowid, systemAudit('media sweep'));
    log(`sweep: medium ${row.id} had no file (${row.blob_key}); its row was removed`);
  }
  let previewsLost = 0;
  for (const row of sharedRows ? [] : rows) {
    if (present.has(row.blob_key) && row.preview_key && !present.has(row.preview_key)) {
      await store.media.dropPreview(row.rowid);
      previewsLost++;
    }
  }
  for (const key of orphans) await blobs.delete(key);
  const result = {
    tempFiles,
    unfinishedUploads,
    orphanBlobs: orphans.length,
    rowsWithoutFile: lostRows.length,
    previewsLost,
  };
  if (tempFiles + unfinishedUploads + orphans.length + lostRows.length + previewsLost > 0) {
    log(
      `sweep: removed ${tempFiles} temp file(s), ` +
        (unfinishedUploads > 0 ? `${unfinishedUploads} unfinished upload(s), ` : '') +
        `${orphans.length} file(s) without a medium, ` +
        `${lostRows.length} medium row(s) without a file; ${previewsLost} preview(s) were missing`,
    );
  }
  return result;
}
