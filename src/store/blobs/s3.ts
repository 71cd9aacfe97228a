/**
 * Media files in an S3-compatible object store (AWS, Ceph's radosgw, …), behind the same
 * BlobStore interface as local disk. An upload still lands in the data dir's scratch first
 * (previews need a seekable local file); `put` then streams it up as a multipart upload and
 * removes the scratch file. The object is durable once the upload answered, so the row, which
 * commits after `put`, never names a missing object. Reads are ranged GETs.
 */
import { createReadStream } from 'node:fs';
import { type Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { StoreUnavailableError } from '../errors.js';
import { BLOB_KEY, type BlobStore } from './blob-store.js';
import { localScratch } from './local.js';
import { streamingMultipart } from './s3-multipart.js';

export interface S3Location {
  bucket: string;
  /** Keys are `<prefix><key>`; empty or ending in `/`. */
  prefix: string;
  /** A non-AWS endpoint (ROSTER_S3_ENDPOINT), addressed path-style. */
  endpoint?: string;
  region?: string;
}

/** `s3://bucket/prefix` as a location; the endpoint and credentials come from the environment. */
export function parseS3Url(url: string, env: NodeJS.ProcessEnv): S3Location {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) {
    throw new Error(`'${url}' is not an S3 URL: use s3://bucket or s3://bucket/prefix`);
  }
  const prefix = (m[2] ?? '').replace(/^\/+/, '');
  return {
    bucket: m[1]!,
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    endpoint: env.ROSTER_S3_ENDPOINT || undefined,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
  };
}

const status = (err: unknown) =>
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/** Network failures and 5xx of the object store: the request may succeed later (503). */
function unavailable(err: unknown): unknown {
  const e = err as { name?: string; code?: string; message?: string };
  const code = status(err);
  if (
    (code !== undefined && code >= 500) ||
    (code === undefined &&
      (e.code === 'ECONNREFUSED' ||
        e.code === 'ECONNRESET' ||
        e.code === 'ETIMEDOUT' ||
        e.name === 'TimeoutError' ||
        /socket hang up|ECONNREFUSED/.test(e.message ?? '')))
  ) {
    return new StoreUnavailableError(`object store unavailable: ${e.message ?? e.name}`, {
      cause: err,
    });
  }
  return err;
}

const drained = (w: Writable) => new Promise<void>((resolve) => w.once('drain', resolve));

/**
 * Each chunk to the local file and to the upload, with backpressure from both. Finished once the
 * file has every byte: the upload may still be sending its last parts, which `commit` awaits
 * (so previews start while they go up). An error of either stops the writer.
 */
function tee(file: Writable, upload: Writable): Writable {
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const waits: Promise<void>[] = [];
      if (!file.write(chunk)) waits.push(drained(file));
      if (!upload.write(chunk)) waits.push(drained(upload));
      Promise.all(waits).then(() => callback(), callback);
    },
    final(callback) {
      upload.end();
      file.end();
      finished(file).then(() => callback(), callback);
    },
    destroy(err, callback) {
      // After a whole body, the stream's own clean-up: the upload waits for commit or abort.
      if (err || !out.writableFinished) {
        file.destroy();
        upload.destroy(err ?? new Error('upload abandoned'));
      }
      callback(err);
    },
  });
  file.on('error', (err) => out.destroy(err));
  upload.on('error', (err) => out.destroy(err));
  // Errors also reach the writer's pipeline and commit; unheard, they must not end the process.
  out.on('error', () => {});
  return out;
}

export function s3BlobStore(location: S3Location, dataDir: string): BlobStore {
  // The SDK warns on Node 20 that its 2027 releases need Node 22 (SCALE.md notes it); that is for
  // whoever pins its version, not a line in every serve's start-up output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client({
    region: location.region,
    endpoint: location.endpoint,
    forcePathStyle: location.endpoint !== undefined,
  });
  const { bucket, prefix } = location;
  const keyOf = (key: string) => {
    // Keys come from the service (ids), never from a request; still, only the known shape.
    if (!BLOB_KEY.test(key)) throw new Error(`invalid blob key '${key}'`);
    return `${prefix}${key}`;
  };
  const where = `s3://${bucket}/${prefix}${location.endpoint ? ` at ${location.endpoint}` : ''}`;
  const scratch = localScratch(dataDir);
  // 5 MiB parts (S3's smallest), 3 at a time: a 1 GiB upload holds 20 MiB of part buffers and
  // keeps radosgw as busy as more, larger parts did (bench/s3.bench.mjs).
  const multipart = (key: string) =>
    streamingMultipart({
      client,
      bucket,
      key: keyOf(key),
      partSize: 5 * 1024 * 1024,
      queueSize: 3,
      mapError: unavailable,
    });
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw unavailable(err);
    }
  };

  return {
    shared: true,
    location: where,
    tempPath: scratch.tempPath,
    discardTemp: scratch.discardTemp,
    sweepTemp: scratch.sweepTemp,

    async put(key, tempPath) {
      const upload = multipart(key);
      try {
        await pipeline(createReadStream(tempPath), upload.sink);
        await upload.commit();
      } catch (err) {
        await upload.abort();
        throw err;
      }
      await scratch.discardTemp(tempPath);
    },

    begin(key) {
      const upload = multipart(key);
      const temp = scratch.create();
      const sink = tee(temp.file, upload.sink);
      return {
        sink,
        localPath: temp.path,
        async commit() {
          await upload.commit();
          await temp.discard();
        },
        async abort() {
          if (!sink.destroyed) sink.destroy(new Error('upload abandoned'));
          await upload.abort();
          await temp.discard();
        },
      };
    },

    async get(key, range) {
      const out = await call(() =>
        client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: keyOf(key),
            Range: range ? `bytes=${range.start}-${range.end}` : undefined,
          }),
        ),
      );
      return out.Body as Readable;
    },

    async stat(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(key) }));
        return { size: head.ContentLength ?? 0 };
      } catch (err) {
        if (status(err) === 404) return undefined;
        throw unavailable(err);
      }
    },

    async modifiedAt(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(key) }));
        return head.LastModified?.getTime();
      } catch (err) {
        if (status(err) === 404) return undefined;
        throw unavailable(err);
      }
    },

    async delete(key) {
      await call(() => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(key) })));
    },

    async *keys() {
      let token: string | undefined;
      do {
        const page = await call(() =>
          client.send(
            new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
          ),
        );
        for (const object of page.Contents ?? []) {
          const key = object.Key?.slice(prefix.length);
          if (key && BLOB_KEY.test(key)) yield key;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },

    async abortUnfinished(before) {
      let aborted = 0;
      let keyMarker: string | undefined;
      let uploadIdMarker: string | undefined;
      do {
        const page = await call(() =>
          client.send(
            new ListMultipartUploadsCommand({
              Bucket: bucket,
              Prefix: prefix,
              KeyMarker: keyMarker,
              UploadIdMarker: uploadIdMarker,
            }),
          ),
        );
        for (const u of page.Uploads ?? []) {
          const key = u.Key?.slice(prefix.length);
          if (!key || !BLOB_KEY.test(key) || !u.UploadId) continue;
          if ((u.Initiated?.getTime() ?? before) >= before) continue;
          await call(() =>
            client.send(
              new AbortMultipartUploadCommand({ Bucket: bucket, Key: u.Key, UploadId: u.UploadId }),
            ),
          );
          aborted++;
        }
        keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
        uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
      } while (keyMarker);
      return aborted;
    },

    close: async () => client.destroy(),

    async inspectRoot() {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
        return { state: 'present', where };
      } catch (err) {
        return { state: status(err) === 404 ? 'missing' : 'unreadable', where };
      }
    },
  };
}
