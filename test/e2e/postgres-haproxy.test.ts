/**
 * Two `roster serve` replicas on one PostgreSQL behind a real haproxy that health-checks
 * /readyz: a rolling restart of both under a steady mix of reads, writes and uploads fails no
 * request. Runs in the PostgreSQL project (media in each replica's data dir) and again in the S3
 * project (one bucket the replicas share).
 */
import { readFileSync } from 'node:fs';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, expect, test } from 'vitest';
import { freshDatabase, testBlobs } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';
import { requester, V3 } from '../helpers/server.js';
import { fixtures, uploadBody } from '../server/media/media-helpers.js';
import { balancer, hasHaproxy, replicas } from './helpers/replicas.js';

const scope = scratch();
/**
 * Each load worker's pause between requests: ~25 requests a second from the three, dozens in
 * each 2 s drain. (At 25 ms, ~100 a second, the file took 18–20 s of CPU here against 12–15 s:
 * the load's uploads and previews, not the restarts.)
 */
const PACE_MS = 100;
afterAll(scope.cleanup);

test.runIf(hasHaproxy)(
  'a rolling restart of both replicas under load fails no request',
  async () => {
    const db = await freshDatabase();
    scope.defer(db.drop);
    // In the S3 project the replicas share a bucket too; else each keeps files in its data dir.
    const blobs = await testBlobs();
    scope.defer(blobs.drop);
    const set = await replicas(scope, {
      count: 2,
      database: db.url,
      blobs: blobs.url,
      args: ['--drain-delay', '2'],
    });
    const { url, allUp } = await balancer(
      scope,
      set.list.map((r) => r.port),
    );
    const token = set.token;
    const req = requester(url, token);
    await eventually(
      async () => (await req('GET', '/readyz').catch(() => undefined))?.status === 200,
      10_000,
    );

    const seed = await req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ externalId: 'steady', email: 'steady@example.com', sendMail: false }),
    });
    expect(seed.status).toBe(201);
    const png = readFileSync((await fixtures()).png);

    // A steady mix of reads, writes and uploads until told to stop.
    const kinds = ['GET', 'POST', 'PUT', 'upload'] as const;
    const failures: string[] = [];
    const done = { GET: 0, POST: 0, PUT: 0, upload: 0 };
    let running = true;
    const worker = async (w: number) => {
      for (let i = 0; running; i++) {
        const kind = kinds[(i + w) % kinds.length]!;
        try {
          const r =
            kind === 'GET'
              ? await req('GET', '/api/users/steady', { headers: { accept: V3 } })
              : kind === 'POST'
                ? await req('POST', '/api/users', {
                    headers: { 'content-type': V3, accept: V3 },
                    body: JSON.stringify({ email: `w${w}-${i}@example.com`, sendMail: false }),
                  })
                : kind === 'PUT'
                  ? await req('PUT', '/api/users/steady', {
                      headers: { 'content-type': V3, accept: V3 },
                      body: JSON.stringify({ profile: { position: `p${w}-${i}` } }),
                    })
                  : await upload(w, i);
          done[kind]++;
          if (r.status >= 300) failures.push(`${kind} ${r.status} ${r.text.slice(0, 120)}`);
        } catch (err) {
          failures.push(`${kind} ${(err as Error).message}`);
        }
        // A paced load, not a wait for anything: requests stay in flight through every drain,
        // while the replicas' restarts keep the cores (unpaced, three loops took 24 s of CPU).
        await pause(PACE_MS);
      }
    };
    const upload = (w: number, i: number) => {
      const { body, contentType } = uploadBody(png, `w${w}-${i}.png`);
      return req('POST', '/api/media', { headers: { 'content-type': contentType }, body });
    };
    // Three at a time keep requests in flight through every drain.
    const load = Promise.all(Array.from({ length: 3 }, (_, w) => worker(w)));

    // Every kind of request gets through before the first replica goes…
    await eventually(() => kinds.every((k) => done[k] > 0), 10_000);
    for (const r of set.list) {
      await set.stop(r);
      await set.start(r);
      // Back in the pool (its health check passed twice) before the next one goes.
      await eventually(allUp, 10_000);
    }
    // …and again after the last one is back.
    const restarted = { ...done };
    await eventually(() => kinds.every((k) => done[k] > restarted[k]), 10_000);
    running = false;
    await load;

    expect(failures).toEqual([]);
    for (const kind of kinds) expect(done[kind], kind).toBeGreaterThan(10);
  },
  120_000,
);
