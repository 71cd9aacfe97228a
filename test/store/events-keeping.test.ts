/**
 * Events kept and let go: a backup (and its restore: the file as a data dir's roster.db) carries
 * the log, sequences going on after it; retention prunes what is older than its days, in
 * batches, and nothing newer; what pruning leaves in event_targets is never listed and is swept.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { gentlePace, pruneEvents, startPruner } from '../../src/server/events/retention.js';
import { backupSqlite } from '../../src/store/copy.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { DATABASE_FILE } from '../../src/store/sqlite/files.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
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

/** event_targets' keys, read beside the store (WAL: a second connection sees its commits). */
function targetKeys(dir: string) {
  const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
  try {
    return db
      .prepare('SELECT branch_id, target_id, sequence FROM event_targets ORDER BY 1, 2, 3')
      .raw()
      .all();
  } finally {
    db.close();
  }
}

test('SQLite: a pruned event is never listed for its target, and the sweep deletes the entries pruning left behind, window by window, and no other', async () => {
  const { dir, store, main, tenant, log } = await storeWithUsers(0);
  try {
    const a = await store.users.insert(
      userRow({ tenant_id: tenant.id, branch_id: main.id, external_id: 'a' }),
      TEST_AUDIT,
    );
    const b = await store.users.insert(
      userRow({ tenant_id: tenant.id, branch_id: main.id, external_id: 'b' }),
      TEST_AUDIT,
    );
    for (let i = 0; i < 4; i++) {
      for (const key of ['a', 'b']) {
        await store.users.update(main.id, key, () => ({ position: `p${i}` }), TEST_AUDIT);
      }
    }
    // The bootstrap's event and the five oldest of the users' go.
    expect(await store.events.prune(new Date(Date.now() + 60_000).toISOString(), 6)).toBe(6);
    const kept = await log();
    const byTarget = (
      targetId: string,
      f: { limit?: number; afterSequence?: number; newestFirst?: boolean } = {},
    ) => store.events.list({ branchId: main.id, targetId, limit: 100, ...f });
    for (const user of [a, b]) {
      const its = kept.filter((e) => e.target.id === user.id);
      expect(its.length).toBeGreaterThan(0);
      expect((await byTarget(user.id)).rows).toEqual(its);
      expect((await byTarget(user.id, { newestFirst: true })).rows).toEqual([...its].reverse());
      // A page at a time, from the start: the entries left behind come first.
      const paged = [];
      let page = await byTarget(user.id, { limit: 1 });
      paged.push(...page.rows);
      while (page.more) {
        page = await byTarget(user.id, { limit: 1, afterSequence: paged.at(-1)!.sequence });
        paged.push(...page.rows);
      }
      expect(paged).toEqual(its);
    }
    // In the table's order: by target (bytewise), then sequence.
    const byKey = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    const live = kept
      .map((e) => [main.id, e.target.id, e.sequence] as const)
      .sort((x, y) => byKey(x[1], y[1]) || x[2] - y[2]);
    expect(targetKeys(dir).length).toBeGreaterThan(live.length);
    // Windows of two: more to look at until the table's end.
    let windows = 0;
    let after: string | undefined;
    do {
      after = await store.events.sweep!(2, after);
      windows++;
    } while (after !== undefined);
    expect(windows).toBeGreaterThan(3);
    expect(targetKeys(dir)).toEqual(live);
    for (const user of [a, b]) {
      expect((await byTarget(user.id)).rows).toEqual(kept.filter((e) => e.target.id === user.id));
    }
  } finally {
    await store.close();
  }
});

test('SQLite: a log written before event_targets (version 18) is found by target after the upgrade', async () => {
  const dir = dirs.temp('events-v18-');
  const db = new Database(join(dir, DATABASE_FILE));
  for (const [v, migration] of MIGRATIONS.slice(0, 18).entries()) {
    db.transaction(() => {
      if (typeof migration === 'string') db.exec(migration);
      else migration(db);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    })();
  }
  const insert = db.prepare(
    `INSERT INTO events (id, tenant_id, branch_id, type, occurred_at, actor_type, channel,
       request_id, target_type, target_id) VALUES (?, 1, 1, 'user.updated', ?, 'token', 'api', 'r', 'user', ?)`,
  );
  for (let i = 0; i < 6; i++)
    insert.run(`e${i}`, new Date(Date.UTC(2030, 0, 1, 0, i)).toISOString(), `t${i % 2}`);
  db.close();
  const store = await openStore({ dataDir: dir, target: databaseTarget(undefined, dir) });
  try {
    const { rows } = await store.events.list({ branchId: 1, targetId: 't1', limit: 10 });
    expect(rows.map((e) => e.id)).toEqual(['e1', 'e3', 'e5']);
    expect(targetKeys(dir)).toHaveLength(6);
  } finally {
    await store.close();
  }
});

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
    // Without the sweep that follows the pruning (its pauses: the next test).
    const { sweep: _sweep, ...events } = store.events;
    const timed = {
      ...events,
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

test("a round sweeps what pruning left after it pruned events (or when asked: a process's first round), paced as its pruning; it counts only the events", async () => {
  const { store } = await storeWithUsers(3);
  try {
    // Each window as [its size, where it went on from]; `windows` more to give.
    const sweeps: [number, string | undefined][] = [];
    let windows = 0;
    const events = {
      ...store.events,
      sweep: async (limit: number, after?: string) => {
        sweeps.push([limit, after]);
        return --windows > 0 ? `w${windows}` : undefined;
      },
    };
    const pauses: number[] = [];
    let t = 0;
    const pace = gentlePace({
      clock: () => t++,
      sleep: async (ms) => {
        pauses.push(ms);
      },
    });
    const today = () => Date.now();
    windows = 3;
    expect(await pruneEvents({ events, days: 30, now: today, batch: 2 })).toBe(0);
    expect(sweeps).toEqual([]);
    expect(await pruneEvents({ events, days: 30, now: today, batch: 2, sweepAnyway: true })).toBe(
      0,
    );
    expect(sweeps).toEqual([
      [2, undefined],
      [2, 'w2'],
      [2, 'w1'],
    ]);
    // Forty days on, paced: one batch prunes all four events, then three windows from the
    // start again, each sized and paused as a batch is (1 ms each, aimed at 3: doubled; paused
    // for 9 ms).
    sweeps.length = 0;
    windows = 3;
    const later = () => Date.now() + 40 * 86_400_000;
    expect(await pruneEvents({ events, days: 30, now: later, pace })).toBe(4);
    expect(sweeps).toEqual([
      [16, undefined],
      [32, 'w2'],
      [64, 'w1'],
    ]);
    expect(pauses).toEqual([9, 9, 9, 9]);
  } finally {
    await store.close();
  }
});

test('the pruner sweeps on its first round, and again after a round that failed, until one ends well', async () => {
  const { store } = await storeWithUsers(0);
  try {
    const sweeps: string[] = [];
    let rounds = 0;
    let fourth!: () => void;
    const fourRounds = new Promise<void>((resolve) => {
      fourth = resolve;
    });
    const events = {
      ...store.events,
      // Nothing ever expires: a sweep only when one is due.
      prune: async () => {
        if (++rounds === 4) fourth();
        return 0;
      },
      sweep: async () => {
        sweeps.push(`round ${rounds}`);
        if (rounds === 1) throw new Error('database is locked');
        return undefined;
      },
    };
    const logged: string[] = [];
    const pruner = startPruner({ events, log: (l) => logged.push(l), intervalMs: 1 });
    await fourRounds;
    pruner.stop();
    expect(sweeps).toEqual(['round 1', 'round 2']);
    expect(logged).toEqual(['error: pruning events: database is locked']);
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
