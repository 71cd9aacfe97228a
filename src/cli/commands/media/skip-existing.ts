/**
 * `media upload --skip-existing`: which files are already there. A medium is a candidate for a
 * file when its name (as the service stores names: contract safeFileName) and size match; only
 * candidates are downloaded and hashed, and a file is there when its SHA-256 equals one's. Files
 * of one run are compared with each other the same way: the same file twice uploads once.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ApiClient } from '../../../client/index.js';
import { uploadFileName } from '../../../client/media.js';
import type { Medium } from '../../../contract/medium.js';
import type { UploadTask } from './upload-run.js';

const keyOf = (name: string, bytes: number) => `${bytes}\u0000${name}`;

async function sha256(stream: Readable | NodeJS.ReadableStream): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(stream, hash);
  return hash.digest('hex');
}

/**
 * Why a file is skipped: a medium holds it already, or an earlier file of this run is the same
 * (name, size and SHA-256, as a medium is compared), which the run uploads instead.
 */
export type Existing =
  | { medium: Medium; sameAs?: undefined }
  | { sameAs: string; medium?: undefined };

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
  const { ApiError } = await import('../../../client/errors.js');
  const contentHash = new Map<string, string | undefined>();
  const hashOf = async (medium: Medium) => {
    if (!contentHash.has(medium.id)) {
      try {
        contentHash.set(medium.id, await sha256(await client.downloadUrl(medium.resourceInfo.url)));
      } catch (err) {
        // Gone since the list (404): not there, so the file uploads. Anything else stops the run.
        if (!(err instanceof ApiError && err.status === 404)) throw err;
        contentHash.set(medium.id, undefined);
      }
    }
    return contentHash.get(medium.id);
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
      for (const medium of media) {
        if ((await hashOf(medium)) === local) {
          there = medium;
          break;
        }
      }
      const earlier = firstWith.get(local);
      if (there) existing.set(task.name, { medium: there });
      else if (earlier !== undefined) existing.set(task.name, { sameAs: earlier });
      else firstWith.set(local, task.name);
    }
  }
  return existing;
}
