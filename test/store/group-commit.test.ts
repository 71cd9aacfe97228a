/**
 * SQLite's group commit (src/store/sqlite/group-commit.ts) on a real database file: the writes
 * of one turn of the event loop are one commit, counted in the WAL itself (a frame that ends a
 * commit carries the database's size in pages; the others 0), and each write is still its own
 * step: one refused is refused alone, and whatever SQLite does with a full database, every
 * write answered is stored and every write refused is not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { UniqueViolationError } from '../../src/store/errors.js';
import { sqliteHandle } from '../../src/store/sqlite/handle.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import type { Store } from '../../src/store/store.js';
import { TEST_AUDIT } from '../helpers/audit.js';
import { scratch } from '../helpers/scratch.js';
import { userRow } from '../helpers/user-row.js';

const files = scratch();
afterEach(() => files.cleanup());

async function open() {
  const dir = files.temp('roster-group-commit-');
  const store = openSqliteStore(dir);
  files.defer(async () => {
    if (sqliteHandle(store).open) await store.close();
  });
  await store.bootstrap();
  const tenant = (await store.tenants.byHost('*'))!;
  const branch = (await store.branches.byName(tenant.id, 'main'))!;
  const db = sqliteHandle(store);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)'); // an empty WAL: from here on, only the test's commits
  return { store, db, dir, at: { tenant_id: tenant.id, branch_id: branch.id } };
}

/** How many commits the WAL holds (its 32-byte header, then frames of a 24-byte header + page). */
function commitsInWal(dir: string): number {
  const wal = readFileSync(join(dir, 'roster.db-wal'));
  if (wal.length === 0) return 0;
  const pageSize = wal.readUInt32BE(8);
  let commits = 0;
  for (let at = 32; at + 24 <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

const present = async (store: Store, branchId: number, externalId: string) =>
  (await store.users.find(branchId, externalId)) !== undefined;

test('the writes of one turn are one commit, and each is answered once it is durable', async () => {
  const { store, dir, at } = await open();
  const writes = Array.from({ length: 20 }, (_, i) =>
    store.users.insert(userRow({ ...at, external_id: `gc-${i}` }), TEST_AUDIT),
  );
  expect(commitsInWal(dir)).toBe(0); // nothing ran yet: they wait for the end of the turn
  const rows = await Promise.all(writes);
  expect(rows.map((r) => r.external_id)).toEqual(writes.map((_, i) => `gc-${i}`));
  expect(commitsInWal(dir)).toBe(1);

  // One at a time, awaited: one commit each, as without grouping.
  for (let i = 0; i < 3; i++) {
    await store.users.insert(userRow({ ...at, external_id: `alone-${i}` }), TEST_AUDIT);
  }
  expect(commitsInWal(dir)).toBe(4);
});

test('a write refused in a group is refused alone: the others of its turn are committed', async () => {
  const { store, dir, at } = await open();
  await store.users.insert(userRow({ ...at, external_id: 'taken' }), TEST_AUDIT);
  const before = commitsInWal(dir);
  const outcomes = await Promise.allSettled(
    ['a', 'b', 'taken', 'c'].map((key) =>
      store.users.insert(userRow({ ...at, external_id: key }), TEST_AUDIT),
    ),
  );
  expect(outcomes.map((o) => o.status)).toEqual([
    'fulfilled',
    'fulfilled',
    'rejected',
    'fulfilled',
  ]);
  expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(UniqueViolationError);
  for (const key of ['a', 'b', 'c']) expect(await present(store, at.branch_id, key)).toBe(true);
  expect(commitsInWal(dir) - before).toBe(1);
  // The refused write's event went with it: one user.created per user made.
  const events = await store.events.list({ branchId: at.branch_id, limit: 100 });
  expect(events.rows.filter((e) => e.type === 'user.created')).toHaveLength(4);
});

test('a full database: every write answered is stored, every write refused is not, and the next turn writes again', async () => {
  const { store, db, at } = await open();
  const pages = db.prepare('PRAGMA page_count').pluck().get() as number;
  // Room for a few rows only: the writes of this turn run out of pages part of the way through.
  db.exec(`PRAGMA max_page_count = ${pages + 6}`);
  const keys = Array.from({ length: 40 }, (_, i) => `full-${i}`);
  const outcomes = await Promise.allSettled(
    keys.map((key) =>
      store.users.insert(
        userRow({ ...at, external_id: key, position: `${key} `.repeat(400) }),
        TEST_AUDIT,
      ),
    ),
  );
  const refused = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
  expect(refused.length).toBeGreaterThan(0);
  for (const r of refused) expect((r.reason as { code?: string }).code).toBe('SQLITE_FULL');
  for (const [i, o] of outcomes.entries()) {
    expect(await present(store, at.branch_id, keys[i]!), keys[i]).toBe(o.status === 'fulfilled');
  }
  db.exec('PRAGMA max_page_count = 1073741823');
  await store.users.insert(userRow({ ...at, external_id: 'after' }), TEST_AUDIT);
  expect(await present(store, at.branch_id, 'after')).toBe(true);
});

test('closing the store commits the writes queued in the turn it closes in', async () => {
  const { store, dir, at } = await open();
  const queued = store.users.insert(userRow({ ...at, external_id: 'last-word' }), TEST_AUDIT);
  await store.close();
  await expect(queued).resolves.toMatchObject({ external_id: 'last-word' });
  const again = openSqliteStore(dir);
  files.defer(() => again.close());
  expect(await present(again, at.branch_id, 'last-word')).toBe(true);
});
