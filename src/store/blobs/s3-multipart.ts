/**
 * A multipart upload fed by a stream while its bytes arrive, in a fixed set of part buffers that
 * are reused: a 1 GiB upload holds (queue + 1) × part size, however slow the object store is.
 * (lib-storage's `Upload` concatenates every incoming chunk into fresh buffers, so a serve
 * process's RSS grew by several times that before the collector caught up.)
 *
 * The object appears only at `commit()`: the parts go up as the body arrives, but the upload is
 * completed (or, for a body smaller than one part, PUT in one request) only once the caller has
 * accepted the file, so a refused upload never shows an object and a small one costs nothing
 * while its body is still being received.
 */
import { Writable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

export interface MultipartOptions {
  client: S3Client;
  bucket: string;
  key: string;
  partSize: number;
  /** Parts in flight at once; the writer waits when all are busy. */
  queueSize: number;
  /** Turns an object store's error into the store's own (503 when it may pass). */
  mapError: (err: unknown) => unknown;
}

/** An upload under way: write the body to `sink` (with backpressure), end it, then `commit()`. */
export interface MultipartUpload {
  /** Destroyed with the store's error when storing fails, so the writer stops at once. */
  sink: Writable;
  /** Makes the object appear under its key, once the whole body went into the ended sink. */
  commit(): Promise<void>;
  /** Gives up: nothing of it stays in the store (call instead of commit, or after it failed). */
  abort(): Promise<void>;
}

export function streamingMultipart(opts: MultipartOptions): MultipartUpload {
  const { client, bucket, key, partSize, queueSize } = opts;
  const free: Buffer[] = [];
  const inFlight = new Set<Promise<void>>();
  const parts: CompletedPart[] = [];
  let current: Buffer | undefined;
  let filled = 0;
  let partNumber = 0;
  let uploadId: Promise<string> | undefined;
  let failed: unknown;
  let committing: Promise<void> | undefined;
  let taken = false;
  /** Settles when the sink has taken the whole body (every part sent) or failed. */
  let received!: { resolve: () => void; reject: (err: unknown) => void };
  const all = new Promise<void>((resolve, reject) => {
    received = { resolve, reject };
  });
  all.catch(() => {});

  const begin = () => {
    uploadId ??= client
      .send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }))
      .then((r) => r.UploadId!);
    return uploadId;
  };

  /** Sends a filled buffer as the next part; resolves once a slot is free again. */
  const sendPart = async (buffer: Buffer, length: number) => {
    const number = ++partNumber;
    const id = await begin();
    const tracked = client
      .send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: id,
          PartNumber: number,
          Body: buffer.subarray(0, length),
        }),
      )
      .then(
        (r) => {
          parts.push({ PartNumber: number, ETag: r.ETag });
          free.push(buffer);
        },
        (err) => {
          failed ??= err;
        },
      );
    inFlight.add(tracked);
    void tracked.finally(() => inFlight.delete(tracked));
    while (inFlight.size >= queueSize && failed === undefined) await Promise.race(inFlight);
    if (failed !== undefined) throw failed;
  };

  const abandon = async (err: unknown) => {
    failed ??= err;
    await Promise.allSettled(inFlight);
    const id = await uploadId?.catch(() => undefined);
    if (id) {
      await client
        .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: id }))
        .catch(() => {});
    }
  };

  const sink = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _encoding, callback) {
      void (async () => {
        let offset = 0;
        while (offset < chunk.length) {
          current ??= free.pop() ?? Buffer.allocUnsafe(partSize);
          const n = chunk.copy(current, filled, offset);
          filled += n;
          offset += n;
          if (filled === partSize) {
            const full = current;
            current = undefined;
            filled = 0;
            await sendPart(full, partSize);
          }
        }
      })().then(() => callback(), callback);
    },
    final(callback) {
      void (async () => {
        // A body of one part or less waits in its buffer for commit()'s single PUT.
        if (partNumber > 0 && filled > 0) {
          const last = current!;
          current = undefined;
          await sendPart(last, filled);
          filled = 0;
        }
        await Promise.all(inFlight);
        if (failed !== undefined) throw failed;
      })().then(
        () => {
          taken = true;
          received.resolve();
          callback();
        },
        (err) => callback(err),
      );
    },
    destroy(err, callback) {
      // After a whole body, the stream's own clean-up: the upload waits for commit() or abort().
      if (taken && err === null) return callback(null);
      const why = err ?? failed ?? new Error('upload abandoned');
      received.reject(why);
      // Parts already sent must not stay, unseen and billed.
      void abandon(why).then(() => callback(err === null ? null : (opts.mapError(err) as Error)));
    },
  });
  // Errors also reach commit() and abort(); a sink nobody listens to must not crash the process.
  sink.on('error', () => {});

  const complete = async () => {
    await all;
    if (partNumber === 0) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: (current ?? Buffer.alloc(0)).subarray(0, filled),
        }),
      );
      return;
    }
    parts.sort((a, b) => a.PartNumber! - b.PartNumber!);
    try {
      await client.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: await begin(),
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (err) {
      await abandon(err);
      throw err;
    }
  };

  return {
    sink,
    commit() {
      committing ??= complete().catch((err) => {
        throw opts.mapError(err);
      });
      return committing;
    },
    async abort() {
      if (!sink.destroyed) sink.destroy(new Error('upload abandoned'));
      await all.catch(() => {});
      await abandon(new Error('upload abandoned'));
    },
  };
}
