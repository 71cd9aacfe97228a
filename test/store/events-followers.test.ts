/**
 * The follower's guarantee on PostgreSQL (docs/events.md): two replicas (in-process apps) on one
 * database, concurrent writers on both, and a follower long-polling one of them with `next`
 * throughout. At the end its list is the whole log: nothing missed, nothing twice, in order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../src/server/config.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { requester, startServer, type TestServer, V3 } from '../helpers/server.js';

let a: TestServer;
let b: { url: string; store: Store; close(): Promise<void> };
const dir = mkdtempSync(join(tmpdir(), 'roster-followers-'));

beforeAll(async () => {
  a = await startServer();
  const store = await openStore({ dataDir: dir, target: databaseTarget(a.database, dir) });
  const app = await createApp({
    store,
    config: { dataDir: dir, vendor: 'service', maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES },
  });
  const { url } = await app.listen(0);
  b = {
    url,
    store,
    async close() {
      await app.close(1000);
      await store.close();
    },
  };
});
afterAll(async () => {
  await b.close();
  await a.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a follower passing next sees every event of writers on two replicas once, in order', async () => {
  const onB = requester(b.url, a.adminToken);
  const replicas = [a.req, onB];
  const writers = 8;
  const each = 12;
  let writing = true;
  const write = async (w: number) => {
    const req = replicas[w % 2]!;
    for (let i = 0; i < each; i++) {
      const res = await req('POST', '/api/users', {
        headers: { 'content-type': V3, accept: V3 },
        body: JSON.stringify({ email: `w${w}-${i}@example.com`, sendMail: false }),
      });
      expect(res.status, res.text).toBe(201);
    }
  };
  const seen: { id: string; sequence: number }[] = [];
  const follow = async () => {
    let next = '';
    for (;;) {
      const done = !writing;
      const after = next ? `&after=${next}` : '';
      const res = await onB('GET', `/api/events?type=user.created&limit=7&wait=1${after}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...res.json.data);
      next = res.json.next;
      // After the writers finished, one answer with nothing more ends the follow.
      if (done && res.json.data.length === 0) return;
    }
  };
  const following = follow();
  try {
    await Promise.all(Array.from({ length: writers }, (_, w) => write(w)));
  } finally {
    writing = false;
  }
  await following;
  const all = await a.req('GET', '/api/events?type=user.created&limit=1000');
  const full = all.json.data.map((e: { id: string }) => e.id);
  expect(full).toHaveLength(writers * each);
  expect(seen.map((e) => e.id)).toEqual(full);
  expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
  const sequences = seen.map((e) => e.sequence);
  expect(sequences).toEqual([...sequences].sort((x, y) => x - y));
});
