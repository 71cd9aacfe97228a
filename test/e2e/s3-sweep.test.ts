/**
 * The start-up sweep with media in a bucket replicas share: an object without a row is removed
 * only once older than the grace period (it may be another replica's upload about to commit),
 * rows and their objects stay, and only one replica sweeps at a time. S3 project only.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import {
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES, type ServerConfig } from '../../src/server/config.js';
import { parseS3Url } from '../../src/store/blobs/s3.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { openTestStore } from '../helpers/database.js';
import { scratch } from '../helpers/scratch.js';
import { requester } from '../helpers/server.js';
import { blobKeys, fixtures, uploadBody } from '../server/media/media-helpers.js';

const dirs = scratch();

const dataDir = dirs.temp('roster-s3-sweep-');
let store: Store;
let dispose: () => Promise<void>;
let blobsUrl: string;
let databaseUrl: string;
let token: string;
let medium: { id: string };
beforeAll(async () => {
  let blobs: string | undefined;
  let database: string | undefined;
  ({ store, dispose, blobs, database } = await openTestStore(dataDir));
  blobsUrl = blobs!;
  databaseUrl = database!;
  token = (await store.bootstrap())!.adminToken;
  const app = await start();
  const { body, contentType } = uploadBody(readFileSync((await fixtures()).png), 'kept.png');
  medium = (
    await requester((await app.listen(0)).url, token)('POST', '/api/media', {
      headers: { 'content-type': contentType },
      body,
    })
  ).json;
  await app.close();
});
afterAll(async () => {
  await dispose();
  await dirs.cleanup();
});

function start(extra: Partial<ServerConfig> = {}, logs: string[] = [], on = { store, dataDir }) {
  return createApp({
    store: on.store,
    config: {
      dataDir: on.dataDir,
      vendor: 'service',
      maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
      ...extra,
    },
    log: (l) => logs.push(l),
  });
}

/** An object in the bucket that no row names, as a crashed or in-flight upload leaves. */
async function stray(key: string) {
  const temp = store.blobs.tempPath();
  writeFileSync(temp, 'no row names me');
  await store.blobs.put(key, temp);
}

test('an object without a row stays within the grace period and goes after it', async () => {
  expect(store.blobs.shared).toBe(true);
  await stray('ffffffffffffffffffffff01');
  const young = await start();
  await young.listen(0);
  await young.close();
  expect(await blobKeys({ store })).toContain('ffffffffffffffffffffff01');

  const logs: string[] = [];
  const old = await start({ sweepGraceMs: 0 }, logs);
  await old.listen(0);
  await old.close();
  const keys = await blobKeys({ store });
  expect(keys).not.toContain('ffffffffffffffffffffff01');
  expect(keys).toContain(medium.id);
  expect(logs.some((l) => /sweep: removed .* 1 file\(s\) without a medium/.test(l))).toBe(true);
});

test('while another replica sweeps, this one skips the sweep, still starts, and takes uploads', async () => {
  await stray('ffffffffffffffffffffff02');
  // A replica with a data dir of its own, new: its scratch for uploads in flight is not made yet.
  const replicaDir = dirs.temp('roster-s3-replica-');
  const replica = await openStore({
    dataDir: replicaDir,
    target: databaseTarget(databaseUrl, replicaDir),
    blobs: blobsUrl,
  });
  const release = await store.trySweepLock();
  expect(release).toBeDefined();
  const logs: string[] = [];
  try {
    // The lock is a PostgreSQL session lock: the app's sweep asks on another connection.
    const app = await start({ sweepGraceMs: 0 }, logs, { store: replica, dataDir: replicaDir });
    const { body, contentType } = uploadBody(Buffer.from('uploaded on the replica'), 'here.txt');
    const upload = await requester((await app.listen(0)).url, token)('POST', '/api/media', {
      headers: { 'content-type': contentType },
      body,
    });
    await app.close();
    expect(upload.status, logs.join('\n')).toBe(200);
  } finally {
    await release!();
    await replica.close();
  }
  expect(logs).toContain('sweep: another replica is sweeping the media; skipped');
  expect(await blobKeys({ store })).toContain('ffffffffffffffffffffff02');
});

/** A multipart upload begun and never completed or aborted: what a replica killed mid-put leaves. */
async function unfinishedUpload(key: string) {
  const { bucket, prefix, endpoint, region } = parseS3Url(blobsUrl, process.env);
  const client = new S3Client({ endpoint, region, forcePathStyle: true });
  const pending = async () =>
    (await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix })))
      .Uploads ?? [];
  const { UploadId } = await client.send(
    new CreateMultipartUploadCommand({ Bucket: bucket, Key: `${prefix}${key}` }),
  );
  await client.send(
    new UploadPartCommand({
      Bucket: bucket,
      Key: `${prefix}${key}`,
      UploadId,
      PartNumber: 1,
      Body: Buffer.alloc(5 * 1024 * 1024, 1),
    }),
  );
  return { pending, close: () => client.destroy() };
}

test('an upload a crashed replica left unfinished is aborted once older than the grace period', async () => {
  const upload = await unfinishedUpload('ffffffffffffffffffffff03');
  try {
    expect((await upload.pending()).map((u) => u.Key)).toEqual([
      expect.stringMatching(/ffffffffffffffffffffff03$/),
    ]);
    const young = await start();
    await young.listen(0);
    await young.close();
    expect(await upload.pending()).toHaveLength(1);

    const logs: string[] = [];
    const old = await start({ sweepGraceMs: 0 }, logs);
    await old.listen(0);
    await old.close();
    expect(await upload.pending()).toEqual([]);
    expect(logs.some((l) => /sweep: removed .* 1 unfinished upload\(s\)/.test(l))).toBe(true);
  } finally {
    upload.close();
  }
});
