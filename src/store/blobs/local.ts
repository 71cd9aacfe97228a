/**
 * Media files behind a small interface, so another backend (S3…) can replace local disk without
 * touching routes. Local disk: `<data>/media/files/<xx>/<key>` (256 shards by the key's last two
 * characters) and `<data>/media/tmp/` for uploads in flight, on the same file system so a
 * rename is atomic. `put` fsyncs the file, renames it into place and fsyncs the directory: once
 * it resolves, the file survives a crash or power loss.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BlobStore } from './blob-store.js';
import { BLOB_KEY } from './blob-store.js';

/** fsync of a file (flags 'r+') or a directory ('r'): what makes a write or a rename durable. */
export async function fsyncPath(path: string, flags = 'r') {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * mkdir -p, made durable: a new directory's entry lives in its parent, so every parent from the
 * new directory's up to the first one that existed is fsynced (else a put into a fresh shard
 * could lose the shard, and the file with it, on power loss).
 */
async function mkdirDurable(dir: string) {
  const first = await mkdir(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  for (let d = dir; d !== dirname(first); d = dirname(d)) await fsyncPath(dirname(d));
}

/** Resolves once `file` has let go of its descriptor (it may still be opening it). */
const closed = (file: WriteStream) =>
  new Promise<void>((done) => {
    if (file.closed) done();
    else file.once('close', () => done());
  });

const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * The data dir's scratch for uploads in flight, whatever keeps the files: previews need a
 * local, seekable file, and a crash leaves only scratch files, swept at start-up.
 */
export function localScratch(dataDir: string) {
  const temp = join(dataDir, 'media', 'tmp');
  const tempPath = () => join(temp, `${randomBytes(12).toString('hex')}.part`);
  return {
    tempPath,
    discardTemp: (path: string) => rm(path, { force: true }),
    /** A new temp file to write to; `discard` closes it (even while opening) and removes it. */
    create() {
      const path = tempPath();
      const file = createWriteStream(path, { flags: 'wx', mode: 0o600 });
      // Its errors reach whoever writes to it; unheard (after an abort), they must not crash.
      file.on('error', () => {});
      const discard = async () => {
        file.destroy();
        await closed(file);
        await rm(path, { force: true });
      };
      return { path, file, closed: () => closed(file), discard };
    },
    async sweepTemp() {
      await mkdirDurable(temp);
      const names = await readdir(temp);
      await Promise.all(names.map((name) => rm(join(temp, name), { force: true })));
      return names.length;
    },
  };
}

export function localBlobStore(dataDir: string): BlobStore {
  const files = join(dataDir, 'media', 'files');
  const scratch = localScratch(dataDir);
  const shardOf = (key: string) => join(files, key.slice(-2).toLowerCase());
  const pathOf = (key: string) => {
    // Keys come from the service (ids), never from a request; still, no path tricks.
    if (!BLOB_KEY.test(key)) throw new Error(`invalid blob key '${key}'`);
    return join(shardOf(key), key);
  };

  const put = async (key: string, tempPath: string) => {
    const target = pathOf(key);
    await mkdirDurable(shardOf(key));
    await fsyncPath(tempPath, 'r+');
    await rename(tempPath, target);
    await fsyncPath(shardOf(key));
  };

  return {
    shared: false,
    location: files,
    tempPath: scratch.tempPath,
    discardTemp: scratch.discardTemp,
    put,

    begin(key) {
      pathOf(key); // refuses a bad key before anything is written
      const temp = scratch.create();
      return {
        sink: temp.file,
        localPath: temp.path,
        // A rename: the bytes are written once, to the file that becomes the blob.
        async commit() {
          await temp.closed();
          if (!temp.file.writableFinished) throw new Error(`blob '${key}' committed unfinished`);
          await put(key, temp.path);
        },
        abort: temp.discard,
      };
    },

    async get(key, range) {
      const stream = createReadStream(pathOf(key), range ?? {});
      // Open before answering, so a missing file is an error here, not a broken response.
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', reject);
      });
      return stream;
    },

    async stat(key) {
      try {
        const s = await stat(pathOf(key));
        return s.isFile() ? { size: s.size } : undefined;
      } catch (err) {
        if (missing(err)) return undefined;
        throw err;
      }
    },

    async modifiedAt(key) {
      try {
        return (await stat(pathOf(key))).mtimeMs;
      } catch (err) {
        if (missing(err)) return undefined;
        throw err;
      }
    },

    async delete(key) {
      await rm(pathOf(key), { force: true });
    },

    async *keys() {
      let shards: string[];
      try {
        shards = await readdir(files);
      } catch (err) {
        if (missing(err)) return;
        throw err;
      }
      for (const shard of shards.sort()) {
        for (const name of (await readdir(join(files, shard))).sort()) {
          if (BLOB_KEY.test(name)) yield name;
        }
      }
    },

    async inspectRoot() {
      try {
        const s = await stat(files);
        if (!s.isDirectory()) return { state: 'unreadable', where: files };
        await readdir(files);
        return { state: 'present', where: files };
      } catch (err) {
        return { state: missing(err) ? 'missing' : 'unreadable', where: files };
      }
    },

    async sweepTemp() {
      await mkdirDurable(files);
      return scratch.sweepTemp();
    },

    // Nothing to abandon or let go of: a crash leaves only temp files, swept by sweepTemp.
    abortUnfinished: async () => 0,
    close: async () => {},
  };
}
