/**
 * `media upload --skip-existing`: which files are already there. A medium is a candidate for a
 * file when its name (as the service stores names: contract safeFileName) and size match; only
 * candidates are downloaded and hashed, and a file is there when its SHA-256 equals one's. Files
 * of one run are compared with each other the same way: the same file twice uploads once.
 *
 * A candidate is read through the API's own origin first (`/cdn/<publicID>` with the token, as
 * Roster serves it whatever `--cdn-url` says), since the public CDN host need not be reachable
 * from an admin's machine; only where that fails (the platform has no such route) is its
 * public URL tried. A medium readable at neither fails its file with both reasons, not the run.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { ApiError, redactUrl } from '../../../client/errors.js';
import type { ApiClient } from '../../../client/index.js';
import { uploadFileName } from '../../../client/media.js';
import type { Medium } from '../../../contract/medium.js';
import type { UploadTask } from './upload-run.js';

const keyOf = (name: string, bytes: number) => `${bytes}\u0000${name}`;

async function sha256(stream: Readable | NodeJS.ReadableStream): Promise<string> {
  return (await digest(stream)).sha;
}

/** The SHA-256 of a stream's bytes, and how many there were. */
async function digest(stream: Readable | NodeJS.ReadableStream) {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha: hash.digest('hex'), bytes };
}

/**
 * Why a file is skipped: a medium holds it already, or an earlier file of this run is the same
 * (name, size and SHA-256, as a medium is compared), which the run uploads instead.
 */
export type Existing =
  | { medium: Medium; sameAs?: undefined; problem?: undefined }
  | { sameAs: string; medium?: undefined; problem?: undefined }
  /** Not known: a candidate could not be read, so the file is neither skipped nor uploaded. */
  | { problem: string; medium?: undefined; sameAs?: undefined };

/** The medium's file on the API's origin: Roster's `/cdn` route, which takes the token. */
export const originUrlOf = (medium: Medium) =>
  `/cdn/${medium.publicID.split('/').map(encodeURIComponent).join('/')}`;

const gone = (err: unknown) => err instanceof ApiError && err.status === 404;
const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Each task's reason to be skipped, by task name (absent: upload it). */
export async function findExisting(
  client: ApiClient,
  tasks: UploadTask[],
): Promise<Map<string, Existing>> {
  const wanted = new Map<string, UploadTask[]>();
  for (const task of tasks) {
    const name = uploadFileName(task.name);
    const key = keyOf(name, task.size);
    wanted.set(key, [...(wanted.get(key) ?? []), task]);
  }
  const candidates = new Map<string, Medium[]>();
  for await (const medium of client.iterateMedia(1000)) {
    const key = keyOf(medium.fileName, medium.resourceInfo.bytes);
    if (wanted.has(key)) candidates.set(key, [...(candidates.get(key) ?? []), medium]);
  }
  type Hashed = { sha: string } | { gone: true } | { problem: string };
  const contentHash = new Map<string, Hashed>();
  const read = async (medium: Medium): Promise<Hashed> => {
    const origin = originUrlOf(medium);
    let viaOrigin: unknown;
    try {
      const read = await digest(await client.downloadUrl(origin));
      // A service without the route may answer any path with a page of its own (a web app's
      // catch-all): that is not the file, so its URL is read instead.
      if (read.bytes === medium.resourceInfo.bytes) return { sha: read.sha };
      viaOrigin = new Error(
        `answered ${read.bytes} bytes, not the medium's ${medium.resourceInfo.bytes}`,
      );
    } catch (err) {
      viaOrigin = err;
    }
    const url = medium.resourceInfo.url;
    try {
      return { sha: await sha256(await client.downloadUrl(url)) };
    } catch (err) {
      // Gone since the list (404 at its URL): not there, so the file uploads.
      if (gone(err)) return { gone: true };
      return {
        problem: `could not compare with medium ${medium.id}: ${redactUrl(url)} did not answer (${reasonOf(err)}), nor did the API's ${origin} (${reasonOf(viaOrigin)})`,
      };
    }
  };
  const hashOf = async (medium: Medium) => {
    if (!contentHash.has(medium.id)) contentHash.set(medium.id, await read(medium));
    return contentHash.get(medium.id)!;
  };
  const existing = new Map<string, Existing>();
  for (const [key, group] of wanted) {
    const media = candidates.get(key) ?? [];
    // Hashed only where a medium or another file of the run could hold the same bytes.
    if (media.length === 0 && group.length < 2) continue;
    const firstWith = new Map<string, string>();
    for (const task of group) {
      const local = await sha256(createReadStream(task.name));
      let there: Medium | undefined;
      let problem: string | undefined;
      for (const medium of media) {
        const hashed = await hashOf(medium);
        if ('problem' in hashed) problem ??= hashed.problem;
        else if ('sha' in hashed && hashed.sha === local) {
          there = medium;
          break;
        }
      }
      const earlier = firstWith.get(local);
      if (there) existing.set(task.name, { medium: there });
      // A candidate not read might hold these bytes: uploading could make a duplicate.
      else if (problem !== undefined) existing.set(task.name, { problem });
      else if (earlier !== undefined) existing.set(task.name, { sameAs: earlier });
      else firstWith.set(local, task.name);
    }
  }
  return existing;
}
