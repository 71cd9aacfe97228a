/**
 * The start-up sweep that makes the data dir consistent after a crash: temp files go, blobs no
 * row names go, and a row whose file is gone is deleted (it could only ever answer 404 on the
 * CDN); a row whose preview alone is gone keeps its medium and loses the preview. Runs before
 * the server listens, so no upload is in flight; one server per data dir.
 */
import type { BlobStore } from '../../store/blobs.js';
import type { Store } from '../../store/store.js';

export interface SweepResult {
  tempFiles: number;
  orphanBlobs: number;
  rowsWithoutFile: number;
  previewsLost: number;
}

export async function sweepMedia(
  store: Store,
  blobs: BlobStore,
  log: (line: string) => void,
): Promise<SweepResult> {
  const tempFiles = await blobs.sweepTemp();
  const present = new Set<string>();
  for await (const key of blobs.keys()) present.add(key);

  const rows = store.media.allKeys();
  const named = new Set<string>();
  let rowsWithoutFile = 0;
  let previewsLost = 0;
  for (const row of rows) {
    if (!present.has(row.blob_key)) {
      store.media.remove(row.rowid);
      rowsWithoutFile++;
      log(`sweep: medium ${row.id} had no file (${row.blob_key}); its row was removed`);
      continue;
    }
    named.add(row.blob_key);
    if (row.preview_key && !present.has(row.preview_key)) {
      store.media.dropPreview(row.rowid);
      previewsLost++;
    } else if (row.preview_key) {
      named.add(row.preview_key);
    }
  }
  let orphanBlobs = 0;
  for (const key of present) {
    if (named.has(key)) continue;
    await blobs.delete(key);
    orphanBlobs++;
  }
  const result = { tempFiles, orphanBlobs, rowsWithoutFile, previewsLost };
  if (tempFiles + orphanBlobs + rowsWithoutFile + previewsLost > 0) {
    log(
      `sweep: removed ${tempFiles} temp file(s), ${orphanBlobs} file(s) without a medium, ` +
        `${rowsWithoutFile} medium row(s) without a file; ${previewsLost} preview(s) were missing`,
    );
  }
  return result;
}
