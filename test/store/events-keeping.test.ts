/**
 * Events kept and let go: a backup (and its restore: the file as a data dir's roster.db) carries
 * the log, sequences going on after it; retention prunes what is older than its days, in
 * batches, and nothing newer.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { gentlePace, pruneEvents } from '../../src/server/events/retention.js';
import { backupSqlite } from '../../src/store/copy.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { TEST_AUDIT } from '../helpers/audit.js';
import { scratch } from '../helpers/scratch.js';
import { userRow } from '../helpers/user-row.js';

const dirs = scratch();
afterEach(dirs.cleanup);

async function storeWithUsers(n: number) {
  const dir = dirs.temp('events-keep-');
  const store = await openStore({ dataDir: dir, target: databaseTarget(undefined, dir) });
  await store.bootstrap();
  const tenant = (await store.tenants.byHost('*'))!;
  const main = (await store.branches.byName(tenant.id, 'main'))!;
  for (let i = 0; i < n; i++) {
    await store.users.insert(
      userRow({ tenant_id: tenant.id, branch_id: main.id, external_id: `k${i}` }),
      TEST_AUDIT,
    );
  }
  const log = async (s: Store = store) =>
    (await s.events.list({ branchId: main.id, limit: 1000 })).rows;
  return { dir, store, main, tenant, log };
}

test('backup and restore carry every event; new sequences continue after them', async () => {
  const { store, log, main, tenant } = await storeWithUsers(3);
  const to = join(dirs.temp('events-backup-'), 'backup.db');
  await backupSqlite(store, to);
  const before = await log();
  await store.close();
  const restored = dirs.temp('events-restored-');
  mkdirSync(restored, { recursive: true });
  copyFileSync(to, join(restored, 'roster.db'));
  const again = await openStore({ dataDir: restored, target: databaseTarget(undefined, restored) });
  try {
    expect(await log(again)).toEqual(before);
    await again.users.insert(
      userRow({ tenant_id: tenant.id, branch_id: main.id, external_id: 'new' }),
      TEST_AUDIT,
    );
    const after = await log(again);
    expect(after.at(-1)!.sequence).toBeGreaterThan(before.at(-1)!.sequence);
  } finally {
    await again.close();
  }
});

test('retention: events older than its days go, in batches; newer ones stay', async () => {
  const { store, log } = await storeWithUsers(5);
  try {
    // Ten days on, with 30 days kept: nothing goes.
    const tenDaysOn = () => Date.now() + 10 * 86_400_000;
    expect(await pruneEvents({ events: store.events, days: 30, now: tenDaysOn })).toBe(0);
    expect(await log()).toHaveLength(6);
    // Forty days on: all of them, two per batch.
    let batches = 0;
    const counting = {
      ...store.events,
      prune: (before: string, limit: number) => {
        batches++;
        return store.events.prune(before, limit);
      },
    };
    const fortyDaysOn = () => Date.now() + 40 * 86_400_000;
    expect(await pruneEvents({ events: counting, days: 30, now: fortyDaysOn, batch: 2 })).toBe(6);
    expect(batches).toBe(4);
    expect(await log()).toEqual([]);
  } finally {
    await store.close();
  }
});

test("paced: each batch is sized from the last one's duration toward the aim (at most doubled, at most halved after a slow one), and followed by a pause of its duration × the factor", async () => {
  const { store, log } = await storeWithUsers(120);
  try {
    expect(await log()).toHaveLength(121);
    // The clock moves only as the batches "cost": 0.125 ms an event, 30 ms more for the third
    // batch (a WAL checkpoint in its commit, say).
    let t = 0;
    const limits: number[] = [];
    const timed = {
      ...store.events,
      prune: async (before: string, limit: number) => {
        const n = await store.events.prune(before, limit);
        limits.push(limit);
        t += n * 0.125 + (limits.length === 3 ? 30 : 0);
        return n;
      },
    };
    const pauses: number[] = [];
    const pace = gentlePace({
      batchMs: 6,
      pauseFactor: 2,
      clock: () => t,
      sleep: async (ms) => {
        pauses.push(ms);
      },
    });
    const later = () => Date.now() + 40 * 86_400_000;
    expect(await pruneEvents({ events: timed, days: 30, now: later, pace })).toBe(121);
    // 16 events take 2 ms: 48 would take 6, but a batch at most doubles; 48 take 6 ms (and 30
    // more): halved, not cut to the 8 that 36 ms would give; 24 take 3 ms: 48 again.
    expect(limits).toEqual([16, 32, 48, 24, 48]);
    expect(pauses).toEqual([4, 8, 72, 6, 0.25]);
    expect(await log()).toEqual([]);
  } finally {
    await store.close();
  }
});

test('a round stops before its next batch once its signal is aborted (serve closing its store)', async () => {
  const { store, log } = await storeWithUsers(40);
  try {
    const stopping = new AbortController();
    const pace = gentlePace({ clock: () => 0, sleep: async () => stopping.abort() });
    const later = () => Date.now() + 40 * 86_400_000;
    const pruned = await pruneEvents({
      events: store.events,
      days: 30,
      now: later,
      pace,
      signal: stopping.signal,
    });
    expect(pruned).toBe(16);
    expect(await log()).toHaveLength(41 - 16);
  } finally {
    await store.close();
  }
});
