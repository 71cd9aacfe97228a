/**
 * The streaming multipart upload against a real radosgw: the object has exactly the bytes
 * written, however they were chunked, and appears only at commit(); a small body is one PUT; an
 * abandoned upload leaves neither an object nor an unfinished multipart upload. S3 project only.
 */
import { randomBytes } from 'node:crypto';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parseS3Url } from '../../src/store/blobs/s3.js';
import { streamingMultipart } from '../../src/store/blobs/s3-multipart.js';
import { testBlobs } from '../helpers/database.js';

const PART = 5 * 1024 * 1024;
let client: S3Client;
let bucket: string;
let drop: () => Promise<void>;
beforeAll(async () => {
  const blobs = await testBlobs();
  drop = blobs.drop;
  const where = parseS3Url(blobs.url!, process.env);
  bucket = where.bucket;
  client = new S3Client({ endpoint: where.endpoint, region: where.region, forcePathStyle: true });
});
afterAll(async () => {
  client.destroy();
  await drop();
});

const upload = (key: string) =>
  streamingMultipart({ client, bucket, key, partSize: PART, queueSize: 2, mapError: (e) => e });

/** Writes `data` in chunks of the sizes given, in turn, honouring backpressure. */
async function write(sink: NodeJS.WritableStream, data: Buffer, sizes: number[]) {
  let offset = 0;
  for (let i = 0; offset < data.length; i++) {
    const size = sizes[i % sizes.length]!;
    if (!sink.write(data.subarray(offset, offset + size))) {
      await new Promise((r) => sink.once('drain', r));
    }
    offset += size;
  }
}

const object = async (key: string) => {
  const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await got.Body!.transformToByteArray());
};
const head = (key: string) => client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
const pending = async () =>
  (await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? [];

test('a body of several parts, written in odd chunks, arrives byte for byte', async () => {
  const data = randomBytes(2 * PART + 12_345);
  const put = upload('three-parts');
  await write(put.sink, data, [1, 65_536, 999_999, PART + 7]);
  put.sink.end();
  await new Promise((r) => put.sink.once('finish', r));
  // Every part is up, but nothing is visible until the caller accepts the file.
  await expect(head('three-parts')).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
  expect(await pending()).toHaveLength(1);
  await put.commit();
  expect((await object('three-parts')).equals(data)).toBe(true);
  expect(await pending()).toEqual([]);
});

test('a body smaller than a part, and an empty one, are single PUTs', async () => {
  for (const [key, data] of [
    ['small', randomBytes(1000)],
    ['empty', Buffer.alloc(0)],
  ] as const) {
    const put = upload(key);
    put.sink.end(data);
    await put.commit();
    expect((await object(key)).equals(data)).toBe(true);
  }
  expect(await pending()).toEqual([]);
});

test('an abandoned upload leaves no object and no unfinished multipart upload', async () => {
  const put = upload('abandoned');
  await write(put.sink, randomBytes(PART * 2 + 10), [256 * 1024]);
  await put.abort();
  await expect(put.commit()).rejects.toThrow('upload abandoned');
  await expect(head('abandoned')).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
  expect(await pending()).toEqual([]);
});
