/**
 * `roster copy --blobs`: a SQLite data dir moved into PostgreSQL and a bucket keeps its media
 * (files and previews), served by a replica with a data dir of its own, and a re-run sends no
 * file twice. S3 project only.
 */
import { readFileSync, rmSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { freshDatabase, testBlobs } from '../helpers/database.js';
import { profileToken, roster, s3Env, spawnServe } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';
import { requester } from '../helpers/server.js';
import { fixtures, uploadBody } from '../server/media/media-helpers.js';

const { temp, defer, cleanup } = scratch();
afterEach(cleanup);

const tokenOf = (config: string) => profileToken(config)!;

test('copy --blobs moves the media files into the bucket; a replica anywhere serves them', async () => {
  const db = await freshDatabase();
  defer(db.drop);
  const bucket = await testBlobs();
  defer(bucket.drop);
  const data = temp('roster-copy-data-');
  const config = temp('roster-copy-config-');
  const files = await fixtures();
  const originals = [readFileSync(files.png), readFileSync(files.exifJpeg)];
  const sqlite = await spawnServe(data, config);
  const req = requester(sqlite.url, tokenOf(config));
  for (const [i, bytes] of originals.entries()) {
    const { body, contentType } = uploadBody(bytes, `f${i}.bin`);
    expect(
      (await req('POST', '/api/media', { headers: { 'content-type': contentType }, body })).status,
    ).toBe(200);
  }
  sqlite.child.kill('SIGTERM');
  await sqlite.child;

  const copied = await roster(
    ['copy', '--data', data, '--to', db.url, '--blobs', bucket.url!, '--json'],
    { env: s3Env() },
  );
  expect(copied.exitCode, String(copied.stderr)).toBe(0);
  // Two files and their two previews.
  expect(JSON.parse(String(copied.stdout))).toMatchObject({ media: 2, files: 4, filesSent: 4 });
  const again = await roster(['copy', '--data', data, '--to', db.url, '--json'], {
    env: { ROSTER_BLOBS_URL: bucket.url!, ...s3Env() },
  });
  expect(again.exitCode, String(again.stderr)).toBe(0);
  expect(JSON.parse(String(again.stdout))).toMatchObject({ media: 2, files: 4, filesSent: 0 });

  // The old data dir is gone; a replica with an empty one serves every file from the bucket.
  rmSync(data, { recursive: true, force: true });
  const replica = await spawnServe(temp('roster-copy-replica-'), temp('roster-copy-config-'), [
    '--database',
    db.url,
    '--blobs',
    bucket.url!,
  ]);
  try {
    const list = await requester(replica.url, tokenOf(config))('GET', '/api/media');
    expect(list.json.total).toBe(2);
    const served = await Promise.all(
      list.json.data.map(async (m: { resourceInfo: { url: string; previewUrl?: string } }) => {
        const file = await fetch(m.resourceInfo.url);
        expect(file.status).toBe(200);
        return Buffer.from(await file.arrayBuffer());
      }),
    );
    expect(served.map((b) => b.toString('base64')).sort()).toEqual(
      originals.map((b) => b.toString('base64')).sort(),
    );
  } finally {
    replica.child.kill('SIGTERM');
    await replica.child;
  }
});
