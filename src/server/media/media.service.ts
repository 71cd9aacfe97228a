/**
 * Media rules: what an upload becomes, who sees which medium, and the order of durable steps.
 * An upload's file (and preview) are fsynced and renamed into the BlobStore before the row
 * commits; a delete commits the row's removal before the files go. Either crash window leaves
 * only files without a row, which the start-up sweep removes.
 */
import { availableParallelism } from 'node:os';
import type { Medium, Page } from '../../contract/medium.js';
import { DEFAULT_LIMIT } from '../../contract/schemas.js';
import type { BlobStore } from '../../store/blobs/blob-store.js';
import { newObjectId } from '../../store/ids.js';
import type { Store } from '../../store/store.js';
import type { MediumRow } from '../../store/types.js';
import type { UrlSigner } from '../cdn/signing.js';
import { AppError } from '../errors.js';
import type { Metrics } from '../http/metrics.js';
import type { RequestScope } from '../http/state.js';
import type { Described, Kind } from '../previews/index.js';
import { renamedFor, sanitizeFileName } from './file-name.js';
import { type PreviewScheduler, previewScheduler } from './preview-scheduler.js';
import { encodePath, type MediumPlace } from './public-id.js';
import { receiveUpload, type UploadBody } from './receive.js';
import { represent } from './represent.js';
import { uploadStripper } from './strip-upload.js';

export interface MediaServiceDeps {
  store: Store;
  blobs: BlobStore;
  signer: UrlSigner;
  /** Media URLs without a signature: /cdn then serves them to the API token only. */
  unsignedUrls?: boolean;
  maxUploadBytes: number;
  previewTimeoutMs: number;
  /** Shares the preview slots between tenants and tokens (default: one per core, at least 2). */
  previewScheduler?: PreviewScheduler;
  /** Storage per tenant for tenants without a quota of their own; undefined: no limit. */
  defaultQuotaBytes?: number;
  /** Store every image upload written again without its metadata (`serve --strip-metadata`). */
  stripMetadata?: boolean;
  /** Gauges of uploads and previews under way, when /metrics is on. */
  metrics?: Pick<Metrics, 'uploadsInFlight' | 'previewsPending'>;
  log: (line: string) => void;
}

/** A stored upload, and why it has no preview when its type gets one (told its uploader once). */
export interface Uploaded {
  row: MediumRow;
  previewError?: string;
}

/** A preview that cannot start within this time is skipped: the upload is answered without. */
export const PREVIEW_QUEUE_WAIT_MS = 15_000;

/** sharp, pdfjs and friends load on the first upload, not when the server starts. */
const previews = () => import('../previews/index.js');

/** A file name's extension as a format for files the bytes say nothing about (`notes.csv`). */
const extensionOf = (fileName: string) =>
  /\.([A-Za-z0-9]{1,10})$/.exec(fileName)?.[1]?.toLowerCase();

export const placeOf = (scope: RequestScope, row: MediumRow): MediumPlace => ({
  tenantHost: scope.tenant.host,
  branchName: scope.branch.name,
  id: row.id,
  fileName: row.file_name,
});

export function mediaService(deps: MediaServiceDeps) {
  const { store, blobs, signer, log } = deps;
  const schedule =
    deps.previewScheduler ??
    previewScheduler({
      slots: Math.max(2, availableParallelism()),
      maxQueuedPerKey: 8,
      maxWaitMs: PREVIEW_QUEUE_WAIT_MS,
    });

  const find = async (scope: RequestScope, id: string): Promise<MediumRow> => {
    const row = await store.media.find(scope.branch.id, id);
    if (!row) {
      throw new AppError(
        'notFound',
        `medium '${id}' does not exist in branch '${scope.branch.name}'`,
      );
    }
    return row;
  };

  /**
   * Describes and previews in the tenant's and token's share of the preview slots. A failed,
   * given-up or crowded-out preview is no failed upload.
   */
  const describe = async (
    scope: RequestScope,
    id: string,
    path: string,
    kind: Kind,
    previewPath: string,
  ) => {
    const { describeAndPreview } = await previews();
    const key = `${scope.tenant.id}/${scope.token.id}`;
    const skipped = (why: string, noPreview: string): Described => {
      log(`medium ${id} (${kind.mimeType}) stored without preview: ${why}`);
      return kind.type === 'raw' ? {} : { noPreview };
    };
    deps.metrics?.previewsPending.inc();
    const outcome = await schedule(key, () =>
      describeAndPreview(path, kind, { previewPath, timeoutMs: deps.previewTimeoutMs }),
    )
      .catch((err: Error) => ({
        ran: true as const,
        value: skipped(err.message, `the file could not be read (${err.message})`),
      }))
      .finally(() => deps.metrics?.previewsPending.dec());
    return outcome.ran
      ? outcome.value
      : skipped(
          `preview ${outcome.reason}`,
          'the service was too busy to make one; upload it again later',
        );
  };

  const strip = deps.stripMetadata
    ? uploadStripper({ schedule, timeoutMs: deps.previewTimeoutMs })
    : async () => undefined;

  const quotaOf = (scope: RequestScope) => scope.tenant.quotaBytes ?? deps.defaultQuotaBytes;
  const overQuota = (scope: RequestScope, used: number, quota: number, adding?: number) => {
    const what = adding === undefined ? 'has used' : 'would exceed';
    const upload = adding === undefined ? '' : `, this upload is ${adding} bytes with its preview`;
    return new AppError(
      'insufficientStorage',
      `tenant '${scope.tenant.host}' ${what} its storage quota: ${used} bytes used of ${quota} (media files and their previews count)${upload}; delete media or raise the quota (roster tenants quota)`,
    );
  };

  /**
   * 507 when the tenant has no room left. Checked before the body is read, and again by the
   * store as the row commits (atomically, so two uploads cannot both take the last room).
   */
  const checkQuota = async (scope: RequestScope) => {
    const quota = quotaOf(scope);
    if (quota === undefined) return;
    const used = await store.media.bytesUsed(scope.tenant.id);
    if (used >= quota) throw overQuota(scope, used, quota);
  };

  /** Receives, inspects, stores and records one upload; the preview is best effort. */
  const receiveAndStore = async (scope: RequestScope, body: UploadBody): Promise<Uploaded> => {
    await checkQuota(scope);
    const id = newObjectId();
    const keys = { file: id, preview: `${id}.preview` };
    const write = blobs.begin(keys.file);
    let received: Awaited<ReturnType<typeof receiveUpload>>;
    try {
      received = await receiveUpload(body, write.sink, deps.maxUploadBytes);
    } catch (err) {
      await write.abort();
      throw err;
    }
    const previewTemp = blobs.tempPath();
    const strippedTemp = blobs.tempPath();
    // The write is open until committed or aborted; stored once the file is under its key.
    let open = true;
    let stored = false;
    try {
      const { sniffType } = await previews();
      let kind = await sniffType(write.localPath);
      let file = { path: write.localPath, bytes: received.bytes, name: received.fileName };
      const stripped = await strip(
        `${scope.tenant.id}/${scope.token.id}`,
        file,
        kind,
        strippedTemp,
      );
      if (stripped) {
        const name = renamedFor(received.fileName, kind.format, stripped.kind.format);
        kind = stripped.kind;
        file = { path: strippedTemp, bytes: stripped.bytes, name };
      }
      const described = await describe(scope, id, file.path, kind, previewTemp);
      const fileName = sanitizeFileName(file.name, kind.format);
      const { preview } = described;
      if (stripped) {
        // What arrived goes (from the object store too, where it was streaming): the stripped
        // file is stored in its place.
        open = false;
        await write.abort();
        await blobs.put(keys.file, strippedTemp);
      } else {
        await write.commit();
        open = false;
      }
      stored = true;
      if (preview) await blobs.put(keys.preview, previewTemp);
      const adding = file.bytes + (preview?.bytes ?? 0);
      // Nobody would hear of this medium: a client that left gets no write it cannot know of
      // (and would only repeat).
      if (body.signal.aborted) throw new AppError('validation', 'the client went away');
      const quota = quotaOf(scope);
      const outcome = await store.media.insert(
        {
          id,
          tenant_id: scope.tenant.id,
          branch_id: scope.branch.id,
          owner_id: scope.token.id,
          file_name: fileName,
          blob_key: keys.file,
          type: kind.type,
          format: kind.format || extensionOf(fileName) || 'bin',
          mime_type: kind.mimeType,
          bytes: file.bytes,
          width: described.width ?? null,
          height: described.height ?? null,
          duration: described.duration ?? null,
          preview_key: preview ? keys.preview : null,
          preview_format: preview?.format ?? null,
          preview_mime_type: preview?.mimeType ?? null,
          preview_bytes: preview?.bytes ?? null,
          preview_width: preview?.width ?? null,
          preview_height: preview?.height ?? null,
          created_at: new Date().toISOString(),
        },
        scope.audit,
        quota,
      );
      if ('used' in outcome) throw overQuota(scope, outcome.used, quota!, adding);
      return { row: outcome.inserted, previewError: described.noPreview };
    } catch (err) {
      if (stored) await discard([keys.file, keys.preview]);
      else if (open) await write.abort();
      throw err;
    } finally {
      // Stored (renamed away) or not wanted: either way no temp file stays.
      await blobs.discardTemp(previewTemp);
      await blobs.discardTemp(strippedTemp);
    }
  };

  /** Removes files, logging (not failing on) what cannot be removed: the sweep gets it later. */
  const discard = async (keys: (string | null | undefined)[]) => {
    for (const key of keys) {
      if (!key) continue;
      await blobs
        .delete(key)
        .catch((err: Error) => log(`error: removing blob ${key}: ${err.message}`));
    }
  };

  return {
    async list(
      scope: RequestScope,
      q: { limit?: number; offset?: number },
    ): Promise<Page<MediumRow>> {
      const limit = q.limit ?? DEFAULT_LIMIT;
      const offset = q.offset ?? 0;
      const { total, rows } = await store.media.list(scope.branch.id, limit, offset);
      return { total, limit, offset, data: rows };
    },

    get: (scope: RequestScope, id: string) => find(scope, id),

    /** One upload, counted while it is under way. */
    async upload(scope: RequestScope, body: UploadBody): Promise<Uploaded> {
      deps.metrics?.uploadsInFlight.inc();
      try {
        return await receiveAndStore(scope, body);
      } finally {
        deps.metrics?.uploadsInFlight.dec();
      }
    },
    async remove(scope: RequestScope, id: string): Promise<void> {
      const row = await find(scope, id);
      await store.reserve.whenFull(() => store.media.remove(row.rowid, scope.audit));
      await discard([row.blob_key, row.preview_key]);
      store.reserve.ensure();
    },

    /** A medium's whole file, read from the BlobStore; refused once it passes `maxBytes`. */
    async contents(row: MediumRow, maxBytes: number): Promise<Buffer> {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of await blobs.get(row.blob_key)) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) throw new Error(`medium ${row.id} is over ${maxBytes} bytes`);
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    },

    /** Renders rows as Media whose URLs point at `cdnBase` and are signed (unless unsignedUrls). */
    viewer(scope: RequestScope, cdnBase: string) {
      const urlFor = deps.unsignedUrls
        ? (path: string) => `${cdnBase}/${encodePath(path)}`
        : (path: string) => `${cdnBase}/${encodePath(path)}?${signer.sign(path)}`;
      return (row: MediumRow): Medium => represent(row, placeOf(scope, row), urlFor);
    },
  };
}

export type MediaService = ReturnType<typeof mediaService>;
