/**
 * The event log's store contract, on the backend the run tests (SQLite by default, PostgreSQL
 * with ROSTER_TEST_DATABASE): each write records its event in its own transaction, a no-op and
 * a refusal record none, secrets are redacted, the filters, pruning in batches, the in-process
 * wake-up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { systemAudit } from '../../src/store/common/event-rows.js';
import type { Store } from '../../src/store/store.js';
import type { Audit, NewUserRow } from '../../src/store/types.js';
import { openTestStore } from '../helpers/database.js';
import { userRow } from '../helpers/user-row.js';

let store: Store;
let dispose: () => Promise<void>;
let tenantId: number;
const dataDir = mkdtempSync(join(tmpdir(), 'roster-events-'));
const audit: Audit = {
  actor: { type: 'token', id: 'tok', name: 'importer' },
  channel: 'api',
  requestId: 'r1',
  run: 'nightly',
};

beforeAll(async () => {
  ({ store, dispose } = await openTestStore(dataDir));
  await store.bootstrap();
  tenantId = (await store.tenants.byHost('*'))!.id;
});
afterAll(async () => {
  await dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

async function freshBranch(name: string) {
  const b = await store.branches.add(tenantId, name);
  const user = (o: Partial<NewUserRow> = {}) =>
    userRow({ tenant_id: tenantId, branch_id: b.id, ...o });
  const log = async () => (await store.events.list({ branchId: b.id, limit: 1000 })).rows;
  return { b, user, log };
}

test('bootstrap records its admin token as the system', async () => {
  const main = (await store.branches.byName(tenantId, 'main'))!;
  const { rows } = await store.events.list({ branchId: main.id, limit: 10 });
  expect(rows[0]).toMatchObject({
    type: 'token.created',
    actor: { type: 'system', name: 'serve' },
    channel: 'system',
  });
});

test('insert and update record created and updated with from → to; a no-op records nothing', async () => {
  const { b, user, log } = await freshBranch('ev-a');
  const row = await store.users.insert(user({ external_id: 'e1', first_name: 'Ann' }), audit);
  await store.users.update(b.id, 'e1', () => ({ first_name: 'Anna', version: 2 }), audit);
  // A write of the same values (and a version bump) changes no field: no event.
  await store.users.update(b.id, 'e1', () => ({ first_name: 'Anna', version: 3 }), audit);
  await store.users.update(b.id, 'e1', () => ({}), audit);
  const events = await log();
  expect(events.map((e) => e.type)).toEqual(['user.created', 'user.updated']);
  expect(events[0]).toMatchObject({
    actor: audit.actor,
    channel: 'api',
    requestId: 'r1',
    run: 'nightly',
    target: { type: 'user', id: row.id, externalId: 'e1' },
  });
  expect(events[0]!.changes!['profile.firstName']).toEqual({ from: null, to: 'Ann' });
  expect(events[1]!.changes).toEqual({ 'profile.firstName': { from: 'Ann', to: 'Anna' } });
  expect(events[1]!.sequence).toBeGreaterThan(events[0]!.sequence);
});

test('every text of an event is stored as written: quotes, backslashes, dollar quotes, non-Latin and astral characters', async () => {
  const { b, user, log } = await freshBranch('ev-text');
  const hostile = [
    "O'Brien'); DROP TABLE events; --",
    "back\\slash \\x27 \\n E''",
    '$$ $tag$ quoted $tag$ $$',
    'Łukasz Żółć 李小龙 🧑‍💻 \u202e',
  ];
  const row = await store.users.insert(
    user({ external_id: hostile[0], first_name: hostile[1], last_name: hostile[2] }),
    { ...audit, run: hostile[3], actor: { type: 'token', id: 'tok', name: hostile[1] } },
  );
  await store.users.update(b.id, row.id, () => ({ position: hostile[3], version: 2 }), audit);
  const [created, updated] = await log();
  expect(created).toMatchObject({
    run: hostile[3],
    actor: { name: hostile[1] },
    target: { id: row.id, externalId: hostile[0] },
  });
  expect(JSON.stringify(created!.changes)).toContain(JSON.stringify(hostile[2]));
  expect(updated!.changes).toEqual({ 'profile.position': { from: null, to: hostile[3] } });
});

test('a refused write (decide throws, or a unique key taken) records no event', async () => {
  const { b, user, log } = await freshBranch('ev-b');
  await store.users.insert(user({ external_id: 'r', email_norm: 'r@x.io' }), audit);
  await expect(
    store.users.update(
      b.id,
      'r',
      () => {
        throw new Error('refused');
      },
      audit,
    ),
  ).rejects.toThrow('refused');
  await expect(store.users.insert(user({ email_norm: 'r@x.io' }), audit)).rejects.toThrow();
  expect((await log()).map((e) => e.type)).toEqual(['user.created']);
});

test('secrets are redacted; status changes are their own types', async () => {
  const { b, user, log } = await freshBranch('ev-c');
  await store.users.insert(user({ external_id: 's', status: 'pending' }), audit);
  await store.users.update(
    b.id,
    's',
    () => ({ status: 'activated', secret_hash: 'scrypt$hash', recovery_hash: 'scrypt$r' }),
    audit,
  );
  await store.users.update(b.id, 's', () => ({ status: 'deactivated' }), audit);
  await store.users.update(b.id, 's', () => ({ status: 'deleted' }), audit);
  const events = await log();
  expect(events.map((e) => e.type)).toEqual([
    'user.created',
    'user.activated',
    'user.deactivated',
    'user.deleted',
  ]);
  expect(events[1]!.changes).toMatchObject({
    secret: { from: '[redacted]', to: '[redacted]' },
    recoveryCode: { from: '[redacted]', to: '[redacted]' },
  });
  expect(JSON.stringify(events)).not.toContain('scrypt$');
});

test('tokens: created and deleted, never the value', async () => {
  const { b, log } = await freshBranch('ev-d');
  const { token, secret } = await store.tokens.create(b.id, 'sync', ['users:read'], ['api'], audit);
  expect(await store.tokens.revoke(token.id, audit)).toBe(true);
  expect(await store.tokens.revoke(token.id, audit)).toBe(false);
  const events = await log();
  expect(events.map((e) => [e.type, e.target.id])).toEqual([
    ['token.created', token.id],
    ['token.deleted', token.id],
  ]);
  expect(JSON.stringify(events)).not.toContain(secret.slice(-16));
});

test('filters: types, target, run, since/until, after; newest first', async () => {
  const { b, user } = await freshBranch('ev-e');
  const a = await store.users.insert(user({ external_id: 'fa' }), audit);
  await store.users.insert(user({ external_id: 'fb' }), { ...audit, run: undefined });
  await store.users.update(b.id, 'fa', () => ({ last_name: 'Z' }), audit);
  const list = (f: Partial<Parameters<Store['events']['list']>[0]>) =>
    store.events.list({ branchId: b.id, limit: 100, ...f });
  expect((await list({ types: ['user.updated'] })).rows).toHaveLength(1);
  expect((await list({ targetId: a.id })).rows).toHaveLength(2);
  expect((await list({ run: 'nightly' })).rows).toHaveLength(2);
  const all = (await list({})).rows;
  expect((await list({ afterSequence: all[0]!.sequence })).rows).toEqual(all.slice(1));
  expect((await list({ limit: 2 })).more).toBe(true);
  expect((await list({ newestFirst: true })).rows).toEqual([...all].reverse());
  expect((await list({ since: '2999-01-01T00:00:00.000Z' })).rows).toEqual([]);
  expect((await list({ until: '2000-01-01T00:00:00.000Z' })).rows).toEqual([]);
  // A target with the other filters, paged both ways (SQLite reads a target's keys from a
  // table of their own, joined to the log).
  const its = all.filter((e) => e.target.id === a.id);
  expect(its.map((e) => e.type)).toEqual(['user.created', 'user.updated']);
  expect((await list({ targetId: a.id, types: ['user.updated'] })).rows).toEqual([its[1]]);
  expect((await list({ targetId: a.id, run: 'nightly' })).rows).toEqual(its);
  expect((await list({ targetId: a.id, newestFirst: true })).rows).toEqual([...its].reverse());
  const first = await list({ targetId: a.id, limit: 1 });
  expect(first).toEqual({ rows: [its[0]], more: true });
  expect(await list({ targetId: a.id, limit: 1, afterSequence: its[0]!.sequence })).toEqual({
    rows: [its[1]],
    more: false,
  });
  expect(
    (await list({ targetId: a.id, newestFirst: true, afterSequence: its[1]!.sequence })).rows,
  ).toEqual([its[0]]);
  expect((await list({ targetId: a.id, since: '2999-01-01T00:00:00.000Z' })).rows).toEqual([]);
  expect((await list({ targetId: a.id, until: '2999-01-01T00:00:00.000Z' })).rows).toEqual(its);
  // Another branch's events of the same target: none.
  const other = await freshBranch('ev-e2');
  expect(
    (await store.events.list({ branchId: other.b.id, targetId: a.id, limit: 100 })).rows,
  ).toEqual([]);
});

test('since/until keep every event of the window, one timed out of sequence order too', async () => {
  // The page is read in sequence order between edges the time index finds (event-rows.ts
  // sequenceEdges); an event written after another but timed two minutes before it must still
  // be in a window that holds its time, and one outside must not.
  const { b, user } = await freshBranch('ev-t');
  const t0 = Date.parse('2031-01-01T00:10:00.000Z');
  const at = async (ms: number, key: string) => {
    vi.setSystemTime(t0 + ms);
    return (await store.users.insert(user({ external_id: key }), audit)).id;
  };
  vi.useFakeTimers({ toFake: ['Date'] });
  let ids: string[];
  try {
    ids = [
      await at(0, 'w1'),
      await at(-2 * 60_000, 'w2'), // the clock stepped back
      await at(60_000, 'w3'),
      await at(20 * 60_000, 'w4'),
    ];
  } finally {
    vi.useRealTimers();
  }
  const iso = (ms: number) => new Date(t0 + ms).toISOString();
  const window = async (since?: number, until?: number) =>
    (
      await store.events.list({
        branchId: b.id,
        limit: 100,
        ...(since === undefined ? {} : { since: iso(since) }),
        ...(until === undefined ? {} : { until: iso(until) }),
      })
    ).rows.map((e) => ids.indexOf(e.target.id) + 1);
  expect(await window(-3 * 60_000)).toEqual([1, 2, 3, 4]);
  expect(await window(-60_000)).toEqual([1, 3, 4]);
  expect(await window(10 * 60_000)).toEqual([4]);
  expect(await window(undefined, 2 * 60_000)).toEqual([1, 2, 3]);
  expect(await window(undefined, -60_000)).toEqual([2]);
  expect(await window(-60_000, 2 * 60_000)).toEqual([1, 3]);
  expect(await window(30 * 60_000)).toEqual([]);
  // A window's edge within the skew of the clock's range (year 9999, year 0) still bounds it.
  const edge = async (f: { since?: string; until?: string }) =>
    (await store.events.list({ branchId: b.id, limit: 100, ...f })).rows.length;
  expect(await edge({ until: '9999-12-31T23:59:59.999Z' })).toBe(4);
  expect(await edge({ since: '0000-01-01T00:00:00.000Z' })).toBe(4);
  expect(await edge({ since: '0000-01-01T00:00:00.000Z', until: '9999-12-31T23:57:00.000Z' })).toBe(
    4,
  );
});

test('prune deletes at most a batch of the oldest expired events per call', async () => {
  const { user, log } = await freshBranch('ev-f');
  for (let i = 0; i < 5; i++) await store.users.insert(user({ external_id: `p${i}` }), audit);
  expect(await store.events.prune('2000-01-01T00:00:00.000Z', 100)).toBe(0);
  expect(await log()).toHaveLength(5);
  const future = new Date(Date.now() + 60_000).toISOString();
  expect(await store.events.prune(future, 2)).toBe(2);
  while ((await store.events.prune(future, 2)) === 2);
  expect(await log()).toEqual([]);
  // A sequence is never given again after pruning: a follower's cursor stays valid.
  const last = await store.users.insert(user({ external_id: 'after' }), audit);
  const [again] = await log();
  expect(again!.target.id).toBe(last.id);
  expect(again!.sequence).toBeGreaterThan(5);
});

test('subscribe is called after this process commits an event', async () => {
  const { user } = await freshBranch('ev-g');
  const woken = new Promise<void>((resolve) => {
    const off = store.events.subscribe(() => {
      off();
      resolve();
    });
  });
  await store.users.insert(user({ external_id: 'w' }), systemAudit('test'));
  await woken;
});
