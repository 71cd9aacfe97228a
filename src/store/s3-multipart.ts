/**
 * A multipart upload fed by a stream while its bytes arrive, in a fixed set of part buffers that
 * are reused: a 1 GiB upload holds (queue + 1) × part size, however slow the object store is.
 * (lib-storage's `Upload` concatenates every incoming chunk into fresh buffers, so a serve
 * process's RSS grew by several times that before the collector caught up.) A body smaller
 * than one part goes up as a single PutObject.
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
import type { StreamingPut } from './blobs.js';

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

export function streamingMultipart(opts: MultipartOptions): StreamingPut {
  const { client, bucket, key, partSize, queueSize } = opts;
  const free: Buffer[] = [];
  const inFlight = new Set<Promise<void>>();
  const parts: CompletedPart[] = [];
  let current: Buffer | undefined;
  let filled = 0;
  let partNumber = 0;
  let uploadId: Promise<string> | undefined;
  let failed: unknown;
  let completed = false;
  let settle!: { resolve: () => void; reject: (err: unknown) => void };
  const done = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Observed through `done` or `abort`; never an unhandled rejection.
  done.catch(() => {});

  const begin = () => {
    uploadId ??= client
      .send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }))
      .then((r) => r.UploadId!);
    return uploadId;
  };

  /** Sends the full current buffer as the next part; resolves once a slot is free again. */
  const sendPart = async (buffer: Buffer, length: number) => {
    const number = ++partNumber;
    const id = await begin();
    const sent = client
      .send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: id,
          PartNumber: number,
          Body: buffer.subarray(0, length),
        }),
      )
      .then((r) => {
        parts.push({ PartNumber: number, ETag: r.ETag });
        free.push(buffer);
      });
    const tracked = sent.catch((err) => {
      failed ??= err;
    });
    inFlight.add(tracked);
    void tracked.finally(() => inFlight.delete(tracked));
    while (inFlight.size >= queueSize && failed === undefined) await Promise.race(inFlight);
    if (failed !== undefined) throw failed;
  };

  const abandon = async (err: unknown) => {
    failed ??= err;
    await Promise.allSettled(inFlight);
    if (uploadId) {
      const id = await uploadId.catch(() => undefined);
      if (id) {
        await client
          .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: id }))
          .catch(() => {});
      }
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
        if (filled > 0) await sendPart(current!, filled);
        await Promise.all(inFlight);
        if (failed !== undefined) throw failed;
        parts.sort((a, b) => a.PartNumber! - b.PartNumber!);
        await client.send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: key,
            UploadId: await begin(),
            MultipartUpload: { Parts: parts },
          }),
        );
      })().then(
        () => {
          completed = true;
          settle.resolve();
          callback();
        },
        async (err) => {
          await abandon(err);
          const mapped = opts.mapError(err);
          settle.reject(mapped);
          callback(mapped as Error);
        },
      );
    },
    destroy(err, callback) {
      if (completed) return callback(err);
      // An error in write(), or the caller giving up: nothing of the upload may stay.
      void abandon(err ?? new Error('upload abandoned')).then(() => {
        settle.reject(opts.mapError(failed));
        callback(err === null ? null : (opts.mapError(err) as Error));
      });
    },
  });
  // Its error also settles `done`; a sink nobody listens to yet must not crash the process.
  sink.on('error', () => {});

  return {
    sink,
    done,
    async abort() {
      if (!sink.destroyed) sink.destroy(new Error('upload abandoned'));
      await done.catch(() => {});
    },
  };
}
