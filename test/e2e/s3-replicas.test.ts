/**
 * Replicas sharing one PostgreSQL and one bucket (one pair, one journey): what one stores the
 * other serves, and a replica killed in the middle of uploads leaves, after the start-up sweep's grace period, no
 * medium without its file and no file without its medium. S3 project only.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterEach, expect, test } from 'vitest';
import { parseS3Url } from '../../src/store/blobs/s3.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { freshDatabase, testBlobs } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';
import { requester, V3 } from '../helpers/server.js';
import { fixtures, multipart, uploadBody } from '../server/media/media-helpers.js';
import { type Replica, replicas } from './helpers/replicas.js';

const scope = scratch();
afterEach(scope.cleanup);

async function shared() {
  const db = await freshDatabase();
  scope.defer(db.drop);
  const blobs = await testBlobs();
  scope.defer(blobs.drop);
  return { database: db.url, blobs: blobs.url! };
}

/** The multipart uploads begun in the bucket and not yet completed or aborted. */
function unfinished(blobs: string) {
  const { bucket, prefix, endpoint, region } = parseS3Url(blobs, process.env);
  const client = new S3Client({ endpoint, region, forcePathStyle: true });
  return {
    pending: async () =>
      (await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix })))
        .Uploads ?? [],
    close: () => client.destroy(),
  };
}

const urlOf = (r: Replica) => `http://127.0.0.1:${r.port}`;

/**
 * Starts an upload of `size` bytes to `url` and sends all but its last chunk, then holds it open:
 * the replica has the body half-written in its scratch when it is killed.
 */
function hangingUpload(url: string, token: string, size: number) {
  const { body, contentType } = multipart([
    { name: 'file', data: Buffer.alloc(size, 7), fileName: 'big.bin' },
  ]);
  const req = request(`${url}/api/media`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${token}`,
      'content-type': contentType,
      'content-length': body.length,
    },
  });
  req.on('error', () => {});
  req.write(body.subarray(0, body.length - 1024));
  return req;
}

test('what one replica stores the other reads and serves; kill -9 of one mid-upload leaves no medium without a file and no file without a medium', async () => {
  const where = await shared();
  const set = await replicas(scope, { count: 2, ...where });
  const [victim, survivor] = set.list as [Replica, Replica];
  // Each says where the media go: the bucket, not its data dir.
  const bucketName = new URL(where.blobs).host;
  for (const r of set.list) {
    expect(r.logs.find((l) => l.includes('listening on'))).toContain(`media: s3://${bucketName}/`);
  }
  const png = readFileSync((await fixtures()).png);

  // Shared: a user and a medium stored through one are read and served through the other.
  const [a, b] = set.list.map((r) => requester(urlOf(r), set.token));
  const user = await a!('POST', '/api/users', {
    headers: { 'content-type': V3, accept: V3 },
    body: JSON.stringify({ email: 'both@example.com', sendMail: false }),
  });
  expect(user.status).toBe(201);
  expect(
    (await b!('GET', `/api/users/${user.json.id}`, { headers: { accept: V3 } })).json.email.value,
  ).toBe('both@example.com');
  const both = uploadBody(png, 'shared.png');
  const medium = await a!('POST', '/api/media', {
    headers: { 'content-type': both.contentType },
    body: both.body,
  });
  expect(medium.status).toBe(200);
  const shown = await b!('GET', `/api/media/${medium.json.id}`);
  expect(shown.status).toBe(200);
  // The medium's URL names replica a's origin; the same path through b serves the same bytes.
  const link = new URL(shown.json.resourceInfo.url);
  const served = await fetch(`${urlOf(survivor)}${link.pathname}${link.search}`);
  expect(served.status).toBe(200);
  expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);

  const up = (r: Replica, name: string) => {
    const { body, contentType } = uploadBody(png, name);
    return requester(urlOf(r), set.token)('POST', '/api/media', {
      headers: { 'content-type': contentType },
      body,
    });
  };
  const before = await up(victim, 'before.png');
  expect(before.status).toBe(200);

  // Uploads in flight on the victim: one half-sent, others racing to commit as it dies.
  const hanging = hangingUpload(urlOf(victim), set.token, 20 * 1024 * 1024);
  const scratchDir = join(victim.data, 'media', 'tmp');
  await eventually(() => readdirSync(scratchDir).length > 0, 10_000);
  // The file goes to the bucket while it arrives: parts of it are there already.
  const bucket = unfinished(where.blobs);
  scope.defer(bucket.close);
  await eventually(async () => (await bucket.pending()).length > 0, 10_000);
  const racing = Array.from({ length: 4 }, (_, i) =>
    up(victim, `racing-${i}.png`).catch(() => undefined),
  );
  await set.kill(victim);
  hanging.destroy();
  await Promise.all(racing);
  // The survivor goes on serving while its peer is down.
  expect((await up(survivor, 'during.png')).status).toBe(200);

  // Back, with the grace period over: its sweep makes rows and objects agree.
  await set.start(victim, ['--sweep-grace', '0']);
  expect(readdirSync(scratchDir)).toEqual([]);
  expect(await bucket.pending()).toEqual([]);
  const store = await openStore({
    dataDir: scope.temp('roster-s3-check-'),
    target: databaseTarget(where.database, ''),
    blobs: where.blobs,
  });
  scope.defer(() => store.close());
  const rows = await store.media.allKeys();
  const objects = new Set<string>();
  for await (const key of store.blobs.keys()) objects.add(key);
  const named = new Set(
    rows.flatMap((r) => [r.blob_key, ...(r.preview_key ? [r.preview_key] : [])]),
  );
  expect(rows.filter((r) => !objects.has(r.blob_key))).toEqual([]);
  expect([...objects].filter((key) => !named.has(key))).toEqual([]);
  // What was acknowledged is still there.
  const ids = new Set(rows.map((r) => r.id));
  expect(ids.has(before.json.id)).toBe(true);
  expect(rows.length).toBeGreaterThanOrEqual(2);
}, 120_000);
