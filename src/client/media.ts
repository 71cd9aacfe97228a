/** One function per /media endpoint, plus streaming upload and download. */

import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Readable } from 'node:stream';
import { decodeFormName, safeFileName } from '../contract/file-name.js';
import type { Medium, MediumType, Page } from '../contract/medium.js';
import type { MediaMetaData } from '../contract/schemas.js';
import { cdnAuthRefusal } from './cdn-auth.js';
import { ApiError, ClientError, MediaAuthError, ResponseFormatError, redactUrl } from './errors.js';
import type { HttpClient } from './http.js';
import { multipartBody } from './multipart.js';
import type { PageRequest } from './paginate.js';
import { header } from './response.js';

export interface UploadOptions {
  filePath: string;
  /** The name the service stores; default the file's base name. */
  fileName?: string;
  /** The metaData hint; default guessed from the extension. */
  type?: MediumType;
  /** Called as file bytes go out: (sent, total). Starts again from 0 on a retry. */
  onProgress?: (sentBytes: number, totalBytes: number) => void;
  signal?: AbortSignal;
}

const EXTENSIONS: Record<string, [MediumType, string]> = {
  '.png': ['image', 'image/png'],
  '.jpg': ['image', 'image/jpeg'],
  '.jpeg': ['image', 'image/jpeg'],
  '.gif': ['image', 'image/gif'],
  '.webp': ['image', 'image/webp'],
  '.avif': ['image', 'image/avif'],
  '.svg': ['image', 'image/svg+xml'],
  '.heic': ['image', 'image/heic'],
  '.tif': ['image', 'image/tiff'],
  '.tiff': ['image', 'image/tiff'],
  '.mp4': ['video', 'video/mp4'],
  '.m4v': ['video', 'video/mp4'],
  '.mov': ['video', 'video/quicktime'],
  '.webm': ['video', 'video/webm'],
  '.mkv': ['video', 'video/x-matroska'],
  '.pdf': ['pdf', 'application/pdf'],
};

/** The metaData type and part Content-Type for a file name (only hints: the service sniffs). */
export function guessMediumType(fileName: string): [MediumType, string] {
  return EXTENSIONS[extname(fileName).toLowerCase()] ?? ['raw', 'application/octet-stream'];
}

/** GET /media: one page, newest first. */
export async function listMedia(http: HttpClient, params: Partial<PageRequest> = {}) {
  const res = await http.json<Page<Medium>>({
    method: 'GET',
    endpoint: '/media',
    query: { ...params },
  });
  return res.data;
}

/** GET /media/{mediumID}. */
export async function getMedium(http: HttpClient, id: string): Promise<Medium> {
  const res = await http.json<Medium>({
    method: 'GET',
    endpoint: '/media/{mediumID}',
    params: { mediumID: id },
  });
  return res.data;
}

/** DELETE /media/{mediumID} (204); the file is removed. */
export async function deleteMedium(http: HttpClient, id: string): Promise<void> {
  await http.json({ method: 'DELETE', endpoint: '/media/{mediumID}', params: { mediumID: id } });
}

/**
 * The name an upload of `path` sends: as the service would store it (no directories, control or
 * bidi characters; a `%22` in it already read as the quote the service would read), so a
 * control character cannot break the part's header, and `--skip-existing` compares the name
 * that is stored.
 */
export const uploadFileName = (path: string) =>
  safeFileName(decodeFormName(basename(path)), { fallback: 'file' });

/**
 * POST /media: streams the file from disk as multipart/form-data (`metaData` = `{type}`, then
 * `file`), never holding it in memory. Retried only on 429 or connection refused, when the
 * file is re-read from the start.
 */
export async function uploadMedium(http: HttpClient, opts: UploadOptions): Promise<Medium> {
  const info = await stat(opts.filePath);
  if (!info.isFile()) throw new Error(`${opts.filePath} is not a regular file`);
  const fileName = uploadFileName(opts.fileName ?? opts.filePath);
  const [guessedType, contentType] = guessMediumType(fileName);
  const body = multipartBody(
    [
      {
        name: 'metaData',
        value: JSON.stringify({ type: opts.type ?? guessedType } satisfies MediaMetaData),
        contentType: 'application/json',
      },
    ],
    { name: 'file', fileName, contentType, filePath: opts.filePath, size: info.size },
    opts.onProgress,
  );
  const res = await http.json<Medium>({
    method: 'POST',
    endpoint: '/media',
    body: body.open,
    contentType: body.contentType,
    contentLength: body.contentLength,
    signal: opts.signal,
  });
  return res.data;
}

export interface DownloadOptions {
  signal?: AbortSignal;
  /** Hosts besides the API's origin that may get the token (cdnAuth: cdn-auth.ts). */
  cdnAuth?: readonly string[];
}

/**
 * GET a medium's content (`resourceInfo.url`, a preview's url) as a stream. The token is sent
 * when the URL is on the base URL's origin or on a host cdnAuth allows (over https), and never
 * after a redirect to another origin; signed CDN URLs need none. A 401/403 says the URL needs
 * authentication and, when the token was not sent, why not (MediaAuthError).
 */
export async function downloadUrl(
  http: HttpClient,
  url: string,
  opts: DownloadOptions = {},
): Promise<Readable> {
  // A relative URL resolves like a link on the API's pages ("/cdn/…" → the base URL's origin).
  let target = new URL(url, `${http.baseUrl}/`);
  const api = new URL(http.baseUrl);
  // Whether a redirect led to another origin: from then on the token is never sent, as
  // browsers and curl drop credentials on such a redirect.
  let crossed = false;
  for (let hop = 0; ; hop++) {
    const withheld: 'not-listed' | 'not-https' | 'redirect' | undefined = crossed
      ? 'redirect'
      : target.origin === http.origin
        ? undefined
        : cdnAuthRefusal(opts.cdnAuth, target, api);
    const res = await http
      .request({ method: 'GET', url: target.href, signal: opts.signal, token: !withheld })
      .catch((err: unknown) => {
        throw authFailure(err, target, http.origin, withheld) ?? err;
      });
    if (res.status < 300) return res.body;
    // A redirect is followed; its body is never what gets saved.
    res.body.on('error', () => {}).destroy();
    const location = header(res.headers, 'location');
    const next = location ? new URL(location, target) : undefined;
    if (!REDIRECTS.has(res.status) || !next || !/^https?:$/.test(next.protocol)) {
      throw new ClientError(
        `GET ${redactUrl(target.href)} answered ${res.status}${location ? ` pointing at ${redactUrl(location)}` : ''}, which is not a file to download`,
        'GET',
        target.href,
      );
    }
    if (hop === MAX_REDIRECTS) {
      throw new ClientError(
        `GET ${redactUrl(url)} took more than ${MAX_REDIRECTS} redirects; the media URL or the CDN is misconfigured`,
        'GET',
        target.href,
      );
    }
    if (next.origin !== target.origin) crossed = true;
    target = next;
  }
}

/** A 401/403 from a media URL as a MediaAuthError; undefined for any other failure. */
function authFailure(
  err: unknown,
  target: URL,
  apiOrigin: string,
  withheld: 'not-listed' | 'not-https' | 'redirect' | undefined,
): MediaAuthError | undefined {
  if (!(err instanceof ApiError || err instanceof ResponseFormatError)) return undefined;
  if (err.status !== 401 && err.status !== 403) return undefined;
  return new MediaAuthError({
    status: err.status,
    url: target.href,
    apiOrigin,
    withheld,
    serverMessage: err instanceof ApiError && err.type ? err.serverMessage : undefined,
    cause: err,
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
