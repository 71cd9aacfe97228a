/**
 * The follower's guarantee on PostgreSQL (docs/events.md): two replicas (in-process apps) on one
 * database, concurrent writers on both, and a follower long-polling one of them with `next`
 * throughout. At the end its list is the whole log: nothing missed, nothing twice, in order.
 * And `copy` from a data dir carries the log into PostgreSQL.
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

test('copy from a data dir carries its events; new ones continue after the copied sequences', async () => {
  const { copySqliteToPostgres } = await import('../../src/store/copy.js');
  const { freshDatabase } = await import('../helpers/database.js');
  const { TEST_AUDIT } = await import('../helpers/audit.js');
  const { userRow } = await import('../helpers/user-row.js');
  const from = mkdtempSync(join(tmpdir(), 'roster-copy-events-'));
  const source = await openStore({ dataDir: from, target: databaseTarget(undefined, from) });
  const { url, drop } = await freshDatabase();
  const target = await openStore({ dataDir: from, target: databaseTarget(url, from) });
  try {
    await source.bootstrap();
    // What serve makes on first start; a later copy knows its own earlier copy by it.
    const { SIGNING_SECRET_KEY } = await import('../../src/store/common/meta-keys.js');
    await source.meta.getOrCreate(SIGNING_SECRET_KEY, () => 'secret of this data dir');
    const tenant = (await source.tenants.byHost('*'))!;
    const main = (await source.branches.byName(tenant.id, 'main'))!;
    const user = (k: string) =>
      userRow({ tenant_id: tenant.id, branch_id: main.id, external_id: k });
    await source.users.insert(user('c1'), TEST_AUDIT);
    await source.users.insert(user('c2'), TEST_AUDIT);
    const counts = await copySqliteToPostgres(source, target);
    expect(counts.events).toBe(3);
    const list = (s: Store) => s.events.list({ branchId: main.id, limit: 100 });
    expect((await list(target)).rows).toEqual((await list(source)).rows);
    // Events the source lost since (pruned, here gaps on both sides of a key range) go from the
    // copy on the next run, compared a few keys at a time.
    for (let i = 3; i < 9; i++) await source.users.insert(user(`c${i}`), TEST_AUDIT);
    const { sqliteHandle } = await import('../../src/store/sqlite/handle.js');
    sqliteHandle(source).prepare('DELETE FROM events WHERE sequence IN (1, 4, 5, 9)').run();
    await copySqliteToPostgres(source, target, undefined, { keysPerDelete: 2 });
    expect((await list(target)).rows).toEqual((await list(source)).rows);
    expect((await list(target)).rows.map((e) => e.sequence)).toEqual([2, 3, 6, 7, 8]);
    await target.users.insert(user('c9'), TEST_AUDIT); // serve on the copy writes on
    const after = (await list(target)).rows;
    expect(after.at(-1)!.sequence).toBeGreaterThan(9);
  } finally {
    await target.close();
    await source.close();
    await drop();
    rmSync(from, { recursive: true, force: true });
  }
});
