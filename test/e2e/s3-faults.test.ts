/**
 * Media in a real S3 server (radosgw) when it fails: a missing bucket or wrong keys stop `serve`
 * with one line; the object store going away mid-service answers 503 and writes no row, and the
 * service resumes by itself when it is back. The outage is a TCP relay in front of radosgw that
 * the test cuts. Runs in the S3 project only (ROSTER_TEST_BLOBS).
 */
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, expect, test } from 'vitest';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { freshDatabase, testBlobs } from '../helpers/database.js';
import { BIN, spawnServe } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';
import { requester } from '../helpers/server.js';
import { fixtures, uploadBody } from '../server/media/media-helpers.js';

const { temp, defer, cleanup } = scratch();
afterAll(cleanup);

const endpoint = new URL(process.env.ROSTER_S3_ENDPOINT ?? 'http://127.0.0.1:7480');

/** A TCP relay to radosgw that can be cut (connections refused and dropped) and restored. */
async function relay() {
  const sockets = new Set<Socket>();
  let up = true;
  const server: Server = createServer((client) => {
    if (!up) return client.destroy();
    const upstream = connect(Number(endpoint.port), endpoint.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  defer(() => new Promise((r) => server.close(r)));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    cut() {
      up = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      up = true;
    },
  };
}

test('a bucket that does not exist, or keys that are refused, stop serve with one line', async () => {
  const db = await freshDatabase();
  defer(db.drop);
  const run = (blobs: string, env: Record<string, string> = {}) =>
    execa(
      process.execPath,
      [
        BIN,
        'serve',
        '--port',
        '0',
        '--data',
        temp('roster-s3-data-'),
        '--database',
        db.url,
        '--blobs',
        blobs,
      ],
      {
        env: { ROSTER_CONFIG_DIR: temp('roster-s3-config-'), NO_COLOR: '1', ...env },
        reject: false,
        timeout: 30_000,
      },
    );
  const missing = await run('s3://roster-no-such-bucket/media');
  expect(missing.exitCode).toBe(1);
  expect(String(missing.stderr).trim().split('\n').at(-1)).toMatch(
    /^error: the media bucket s3:\/\/roster-no-such-bucket\/media\/ at .* does not exist/,
  );
  const blobs = await testBlobs();
  defer(blobs.drop);
  const refused = await run(blobs.url!, { AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
  expect(refused.exitCode).toBe(1);
  expect(String(refused.stderr)).toContain('cannot be read: check ROSTER_S3_ENDPOINT');
  expect(String(refused.stderr)).not.toContain('not-the-secret');
  // Refused before anything was made: no tenant and no admin token that nobody was shown (the
  // next serve that starts makes them, and saves the token as a profile).
  const dir = temp('roster-s3-data-');
  const store = await openStore({ dataDir: dir, target: databaseTarget(db.url, dir) });
  defer(() => store.close());
  expect(await store.tokens.list()).toEqual([]);
  expect(await store.tenants.list()).toEqual([]);
});

test('the object store going away answers 503, writes no row, and recovers without a restart', async () => {
  const db = await freshDatabase();
  defer(db.drop);
  const blobs = await testBlobs();
  defer(blobs.drop);
  const gate = await relay();
  const data = temp('roster-s3-data-');
  const config = temp('roster-s3-config-');
  const served = await spawnServe(data, config, ['--database', db.url, '--blobs', blobs.url!], {
    ROSTER_S3_ENDPOINT: gate.url,
  });
  defer(async () => {
    served.child.kill('SIGTERM');
    await served.child;
  });
  const token = JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')).profiles.local.token;
  const req = requester(served.url, token);
  const png = readFileSync((await fixtures()).png);
  const post = (name: string) => {
    const { body, contentType } = uploadBody(png, name);
    return req('POST', '/api/media', { headers: { 'content-type': contentType }, body });
  };
  const kept = await post('kept.png');
  expect(kept.status).toBe(200);
  const file = await fetch(kept.json.resourceInfo.url);
  expect(file.status).toBe(200);
  await file.arrayBuffer();

  gate.cut();
  const refused = await post('refused.png');
  expect(refused.status).toBe(503);
  expect(refused.headers['retry-after']).toBe('2');
  expect(refused.json).toMatchObject({ identifier: 50300, type: 'ServiceUnavailableException' });
  const read = await fetch(kept.json.resourceInfo.url);
  expect(read.status).toBe(503);
  const rows = async () => {
    const pg = await import('pg');
    const c = new pg.default.Client({ connectionString: db.url });
    await c.connect();
    const { rows: r } = await c.query('SELECT file_name FROM media ORDER BY file_name');
    await c.end();
    return r.map((x) => x.file_name);
  };
  expect(await rows()).toEqual(['kept.png']);

  gate.restore();
  const again = await post('again.png');
  expect(again.status).toBe(200);
  expect((await fetch(kept.json.resourceInfo.url)).status).toBe(200);
  expect(await rows()).toEqual(['again.png', 'kept.png']);
});
