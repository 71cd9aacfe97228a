/**
 * /cdn/<tenant>/<branch>/<mediumId>/<fileName> and …/<mediumId>/t_preview/<name>: the stored
 * bytes with validators, ranges and cache rules, for a CDN in front or for clients directly.
 */
import type Router from '@koa/router';
import { PREVIEW } from '../../contract/medium.js';
import type { BlobStore } from '../../store/blobs/blob-store.js';
import type { Store } from '../../store/store.js';
import type { PlacedMediumRow } from '../../store/types.js';
import { AppError } from '../errors.js';
import type { AppContext, AppState } from '../http/state.js';
import { previewNameOf, tenantSegment } from '../media/public-id.js';
import { type Access, cdnAccess } from './cdn-access.js';
import { noneMatch, notModifiedSince, parseRange, rangeStillValid } from './conditional.js';
import { contentHeaders } from './content-headers.js';
import type { UrlSigner } from './signing.js';

const YEAR = 365 * 24 * 60 * 60;

interface Target {
  key: string;
  mimeType: string;
  fileName: string;
  etag: string;
}

/** The file the path names, if the row's place matches it exactly. */
function targetOf(
  row: PlacedMediumRow | undefined,
  p: Record<string, string>,
  preview: boolean,
): Target | undefined {
  if (!row || tenantSegment(row.tenant_host) !== p.tenant || row.branch_name !== p.branch) return;
  if (!preview) {
    if (p.file !== row.file_name) return;
    return {
      key: row.blob_key,
      mimeType: row.mime_type,
      fileName: row.file_name,
      etag: `"${row.id}"`,
    };
  }
  if (!row.preview_key || p.file !== previewNameOf(row.file_name, row.preview_format!)) return;
  const mimeType = row.preview_mime_type!;
  return { key: row.preview_key, mimeType, fileName: p.file, etag: `"${row.id}-${PREVIEW}"` };
}

function cacheControl(access: Access): string {
  if (access.kind === 'token') return `private, max-age=${YEAR}, immutable`;
  // A cache must not serve a signed URL beyond its expiry.
  const left = Math.max(0, Math.min(YEAR, access.expires - Math.floor(Date.now() / 1000)));
  return `public, max-age=${left}, immutable`;
}

export function registerCdnRoutes(
  router: Router<AppState>,
  /** Without a signer (serve --cdn-token-only) only the API token opens a file. */
  deps: { store: Store; blobs: BlobStore; signer?: UrlSigner },
): void {
  const authorize = cdnAccess(deps.store, deps.signer);

  const serve = (preview: boolean) => async (ctx: AppContext) => {
    const p = ctx.params as Record<string, string>;
    const path = [p.tenant, p.branch, p.id, ...(preview ? [PREVIEW] : []), p.file].join('/');
    const access = await authorize(ctx, path);
    const row = await deps.store.media.placed(p.id!);
    const target =
      access.kind === 'token' && row?.branch_id !== access.branchId
        ? undefined
        : targetOf(row, p, preview);
    const size = target && (await deps.blobs.stat(target.key))?.size;
    if (!target) {
      throw new AppError('notFound', `no file at /cdn/${path}; it was deleted or never existed`);
    }
    if (size === undefined) {
      // The row is here, the file is not: a replica with media on its own disk, or a lost file.
      throw new AppError(
        'notFound',
        `medium ${row!.id} exists, but this server has no copy of its file (/cdn/${path}); replicas share media files only through a bucket: serve every replica with the same --blobs s3://bucket/prefix`,
      );
    }

    const lastModified = new Date(row!.created_at);
    ctx.set(contentHeaders(target.mimeType, target.fileName));
    ctx.set('ETag', target.etag);
    ctx.set('Last-Modified', lastModified.toUTCString());
    ctx.set('Cache-Control', cacheControl(access));
    ctx.set('Accept-Ranges', 'bytes');
    if (access.kind === 'token') ctx.set('Vary', 'Authorization');

    const inm = ctx.get('If-None-Match');
    if (
      inm
        ? noneMatch(inm, target.etag)
        : notModifiedSince(ctx.get('If-Modified-Since'), lastModified)
    ) {
      ctx.status = 304;
      return;
    }
    const wanted = rangeStillValid(ctx.get('If-Range'), target.etag, lastModified)
      ? parseRange(ctx.get('Range'), size)
      : undefined;
    if (wanted === 'unsatisfiable') {
      // No body, so no body type: the file's would describe bytes that are not sent.
      ctx.remove('Content-Type');
      ctx.remove('Content-Disposition');
      ctx.body = null;
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${size}`);
      return;
    }
    const range = wanted ?? (size > 0 ? { start: 0, end: size - 1 } : undefined);
    ctx.status = wanted ? 206 : 200;
    if (wanted) ctx.set('Content-Range', `bytes ${wanted.start}-${wanted.end}/${size}`);
    const length = range ? range.end - range.start + 1 : 0;
    if (ctx.method === 'HEAD' || length === 0) {
      // No stream for HEAD (Koa would never consume or close it); '' for an empty file.
      if (ctx.method !== 'HEAD') ctx.body = '';
      ctx.length = length;
      return;
    }
    ctx.body = await deps.blobs.get(target.key, range);
    ctx.length = length;
  };

  router.get('/cdn/:tenant/:branch/:id/:file', serve(false));
  router.get(`/cdn/:tenant/:branch/:id/${PREVIEW}/:file`, serve(true));
}
