import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { SEARCH_FIELDS } from '../../src/store/common/search.js';
import { openDatabase } from '../../src/store/sqlite/db.js';
import { sqliteHandle } from '../../src/store/sqlite/handle.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { usersWords } from '../../src/store/sqlite/schema-sql.js';
import { openSqliteStore as openStore } from '../../src/store/sqlite/store.js';
import { ftsExpression } from '../../src/store/sqlite/users-list.js';
import { TEST_AUDIT } from '../helpers/audit.js';
import { UNDO_AFTER_SPELLED_OUT } from '../helpers/migrations.js';
import { scratch } from '../helpers/scratch.js';
import { userRow } from '../helpers/user-row.js';

const scope = scratch();
afterEach(scope.cleanup);
const tempDir = () => scope.temp('roster-db-');

test('every open sets WAL, synchronous=FULL, a busy timeout and a 64 MiB page cache, also on reopen', () => {
  const dir = tempDir();
  for (let i = 0; i < 2; i++) {
    const db = openDatabase(dir);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('cache_size', { simple: true })).toBe(-65536);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
  }
});

test('a database from a newer roster is refused with a clear message', () => {
  const dir = tempDir();
  const db = openDatabase(dir);
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  expect(() => openDatabase(dir)).toThrow(/newer than this roster/);
});

test('a migration the database refuses: names it and the cause, rolled back', () => {
  // Migration 9's indexes partly made by hand before it ran.
  const dir = tempDir();
  openDatabase(dir).close();
  const raw = new Database(join(dir, 'roster.db'));
  raw.exec('DROP INDEX users_by_created; DROP INDEX users_by_email');
  raw.pragma('user_version = 8');
  raw.close();
  expect(() => openDatabase(dir)).toThrow(
    `migration 9 of ${MIGRATIONS.length} failed in the database ${join(dir, 'roster.db')}: index users_by_first_name already exists; it was rolled back and the schema is still at version 8`,
  );
  const after = new Database(join(dir, 'roster.db'));
  expect(after.pragma('user_version', { simple: true })).toBe(8);
  expect(
    after.prepare("SELECT name FROM sqlite_schema WHERE name = 'users_by_created'").all(),
  ).toEqual([]);
  after.close();
});

test('ftsExpression quotes every word as a prefix term and drops syntax', () => {
  expect(ftsExpression('ann lee')).toBe('"ann"* "lee"*');
  expect(ftsExpression('"a" OR b*')).toBe('"a"* "OR"* "b"*');
  expect(ftsExpression('*** ()')).toBeNull();
  expect(ftsExpression('Müller')).toBe('"Müller"*');
});

test('the data dir becomes 0700 and its database files 0600, whatever existed before', () => {
  const dir = tempDir();
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'roster.db'), '', { mode: 0o644 });
  chmodSync(join(dir, 'roster.db'), 0o644);
  const store = openStore(dir);
  const mode = (p: string) => statSync(p).mode & 0o777;
  expect(mode(dir)).toBe(0o700);
  for (const f of ['roster.db', 'roster.db-wal', 'roster.db-shm']) {
    expect(mode(join(dir, f)), f).toBe(0o600);
  }
  expect(store.permissionWarnings).toEqual([
    `data dir ${dir} was mode 0755; set to 0700`,
    `${join(dir, 'roster.db')} was mode 0644; set to 0600`,
  ]);
  store.close();
  const again = openStore(dir);
  expect(again.permissionWarnings).toEqual([]);
  again.close();
});

test('a fresh data dir is made 0700 with a 0600 database, and nothing to warn about', () => {
  const dir = join(tempDir(), 'fresh');
  const store = openStore(dir);
  expect(store.permissionWarnings).toEqual([]);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  for (const f of ['roster.db', 'roster.db-wal', 'roster.db-shm']) {
    expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
  }
  store.close();
});

test('migration 6 moves every user into the scoped search index, and searches keep their answers', async () => {
  const dir = tempDir();
  // A database as the roster before migration 6 left it, with users of two branches.
  const old = new Database(join(dir, 'roster.db'));
  for (const [v, sql] of MIGRATIONS.slice(0, 5).entries()) {
    old.exec(sql as string);
    old.pragma(`user_version = ${v + 1}`);
  }
  old.exec(`INSERT INTO tenants (host, created_at) VALUES ('*', 'now')`);
  old.exec(
    `INSERT INTO branches (tenant_id, name, created_at) VALUES (1, 'main', 'now'), (1, 'b', 'now')`,
  );
  const insert = old.prepare(
    `INSERT INTO users (id, tenant_id, branch_id, status, first_name, last_name, custom, created_at, updated_at)
     VALUES (?, 1, ?, ?, ?, ?, '{}', 'now', 'now')`,
  );
  const people = [
    [1, 'activated', 'Anna', 'Müller'],
    [1, 'activated', 'Ben', 'Meyer'],
    [1, 'pending', 'Mia', 'Schmidt'],
    [1, 'deleted', 'Max', 'Mustermann'],
    [2, 'activated', 'Marta', 'Moser'],
  ] as const;
  for (const [i, [branch, status, first, last]] of people.entries()) {
    insert.run(String(i).padStart(24, '0'), branch, status, first, last);
  }
  old.close();

  const store = openStore(dir);
  try {
    const list = async (query: string, statuses: ('activated' | 'pending')[], branchId = 1) => {
      const page = await store.users.list({
        branchId,
        statuses,
        query,
        sort: [{ key: 'lastName', dir: 'ASC' }],
        limit: 10,
        offset: 0,
      });
      return [page.total, page.rows.map((r) => r.first_name)];
    };
    expect(await list('m', ['activated'])).toEqual([2, ['Ben', 'Anna']]);
    expect(await list('m', ['activated', 'pending'])).toEqual([3, ['Ben', 'Anna', 'Mia']]);
    expect(await list('m', ['activated'], 2)).toEqual([1, ['Marta']]);
    expect(await list('muller', ['activated'])).toEqual([1, ['Anna']]);
    // The scope token is not a word of the user: searching for it finds nobody.
    expect(await list('b1activated', ['activated'])).toEqual([0, []]);
    // A change of status or of a name moves the user's entry with it.
    const ben = '000000000000000000000001';
    await store.users.update(
      1,
      ben,
      () => ({ status: 'pending', last_name: 'Becker' }),
      TEST_AUDIT,
    );
    expect(await list('m', ['activated'])).toEqual([1, ['Anna']]);
    expect(await list('becker', ['pending'])).toEqual([1, ['Ben']]);
    expect(await list('meyer', ['activated', 'pending'])).toEqual([0, []]);
  } finally {
    await store.close();
  }
});

/** The external ids an activated-users search of `branchId` finds, by last name. */
const foundIn = (store: ReturnType<typeof openStore>, branchId: number) => async (query: string) =>
  (
    await store.users.list({
      branchId,
      statuses: ['activated'],
      query,
      sort: [{ key: 'lastName', dir: 'ASC' }],
      limit: 10,
      offset: 0,
    })
  ).rows.map((r) => r.external_id);

/** A migrated data dir with the default tenant and its main branch (1), open to write rows. */
function withMainBranch() {
  const dir = tempDir();
  openDatabase(dir).close();
  const db = new Database(join(dir, 'roster.db'));
  db.exec(`INSERT INTO tenants (host, created_at) VALUES ('*', 'now')`);
  db.exec(`INSERT INTO branches (tenant_id, name, created_at) VALUES (1, 'main', 'now')`);
  return { dir, db };
}

test('a store that sorts every match (searchSortsUpTo above what a count reads as rowids) gets all of them, and their exact count', async () => {
  const { dir, db } = withMainBranch();
  // 20,050 "Mo" users, the first in the order last in rowid order: more than users-list.ts
  // reads as rowids to count (MATCHES_READ, 20,000).
  const n = 20_050;
  db.exec(`WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < ${n})
    INSERT INTO users (id, tenant_id, branch_id, status, first_name, last_name, custom, created_at, updated_at)
    SELECT printf('%024d', k), 1, 1, 'activated', 'Mo', printf('L%06d', ${n} - k), '{}', 'now', 'now' FROM i`);
  db.close();
  const store = openStore(dir, dir, undefined, { searchSortsUpTo: 1_000_000 });
  try {
    const page = await store.users.list({
      branchId: 1,
      statuses: ['activated'],
      query: 'mo',
      sort: [
        { key: 'lastName', dir: 'ASC' },
        { key: 'firstName', dir: 'ASC' },
      ],
      limit: 2,
      offset: 0,
    });
    expect(page.total).toBe(n);
    expect(page.totalExact).toBeUndefined();
    expect(page.rows.map((r) => r.last_name)).toEqual(['L000000', 'L000001']);
  } finally {
    await store.close();
  }
});

test('a search with more than 2,000 matches pages in the order as one with few does', async () => {
  const { dir, db } = withMainBranch();
  const insert = db.prepare(
    `INSERT INTO users (id, tenant_id, branch_id, status, first_name, last_name, custom, created_at, updated_at)
     VALUES (?, 1, 1, 'activated', ?, ?, '{}', 'now', 'now')`,
  );
  // 2,100 last names match "m", and every seventh user's first name "mo" (343 of them).
  const people = Array.from({ length: 2400 }, (_, i) => {
    const last = i < 2100 ? `M${String((i * 7919) % 2100).padStart(4, '0')}` : `Lee${i}`;
    const first = i % 7 === 0 ? 'Mo' : 'Ann';
    return [String(i).padStart(24, '0'), first, last] as const;
  });
  // Out of scope, and first in the order were they let in: matches in another branch and
  // deactivated ones. Branch 1's activated users are still most of the database (users-list.ts
  // wideScope), so those searches read the words' matches alone and must leave these out
  // themselves; branch 2's 50 are a narrow scope, searched with its token.
  db.exec(`INSERT INTO branches (tenant_id, name, created_at) VALUES (1, 'other', 'now')`);
  const outside = db.prepare(
    `INSERT INTO users (id, tenant_id, branch_id, status, first_name, last_name, custom, created_at, updated_at)
     VALUES (?, 1, ?, ?, 'Mo', 'Aaberg', '{}', 'now', 'now')`,
  );
  db.transaction(() => {
    for (const p of people) insert.run(...p);
    for (let i = 0; i < 100; i++)
      outside.run(`out${i}`.padStart(24, '0'), i % 2 ? 2 : 1, i % 2 ? 'activated' : 'deactivated');
  })();
  // Their search words, as an upgrade writes those of users written before them.
  usersWords(db);
  db.close();
  const store = openStore(dir);
  // The same data read with a lower bound of few: many-match reads at small sizes.
  const fewer = openStore(dir, dir, undefined, { searchSortsUpTo: 10 });
  try {
    const walk = async (
      query: string,
      { from = store, branchId = 1 }: { from?: typeof store; branchId?: number } = {},
    ) => {
      const names: string[] = [];
      let after: Awaited<ReturnType<typeof store.users.list>>['next'];
      let total = 0;
      do {
        const page = await from.users.list({
          branchId,
          statuses: ['activated'],
          query,
          sort: [{ key: 'lastName', dir: 'ASC' }],
          limit: 700,
          offset: 0,
          after,
        });
        total = page.total;
        names.push(...page.rows.map((r) => `${r.last_name} ${r.first_name}`));
        after = page.next;
      } while (after);
      return { total, names };
    };
    const expected = (test: (first: string, last: string) => boolean) =>
      people
        .filter(([, first, last]) => test(first.toLowerCase(), last.toLowerCase()))
        .map(([, first, last]) => `${last} ${first}`)
        .sort();
    const many = await walk('m');
    expect([many.total, many.names.length]).toEqual([2143, 2143]);
    expect(many.names).toEqual(expected((f, l) => f.startsWith('m') || l.startsWith('m')));
    const few = await walk('mo');
    expect(few.names).toEqual(expected((f) => f.startsWith('mo')));
    expect(few.total).toBe(few.names.length);
    // Two words: their few matches counted from the words, each checked for branch and status;
    // and with more than few (343 > 10), counted in scope and walked in the order.
    for (const from of [store, fewer]) {
      const both = await walk('mo m', { from });
      expect(both.names).toEqual(few.names);
      expect(both.total).toBe(few.names.length);
    }
    // A narrow scope with more than few: walked with the scope's token.
    expect(await walk('mo', { from: fewer, branchId: 2 })).toEqual({
      total: 50,
      names: Array.from({ length: 50 }, () => 'Aaberg Mo'),
    });
    // An offset past a whole status in a wide scope (branch 1's activated and deactivated):
    // the part is skipped by its count, the page the same as when every match is sorted.
    const all = openStore(dir, dir, undefined, { searchSortsUpTo: 1_000_000 });
    try {
      const f = {
        branchId: 1,
        statuses: ['activated', 'deactivated'] as ('activated' | 'deactivated')[],
        query: 'm',
        sort: [
          { key: 'status' as const, dir: 'ASC' as const },
          { key: 'lastName' as const, dir: 'ASC' as const },
        ],
        limit: 10,
        offset: 2145,
      };
      const walked = await store.users.list(f);
      expect(walked.total).toBe(2193);
      expect(walked.rows.map((r) => r.status)).toEqual(Array(10).fill('deactivated'));
      const sorted = await all.users.list(f);
      expect(walked.rows.map((r) => r.id)).toEqual(sorted.rows.map((r) => r.id));
    } finally {
      await all.close();
    }
  } finally {
    await fewer.close();
    await store.close();
  }
});

test('migration 16 spells out ß, ø, đ, ł, æ, œ in existing entries: found as ss, o…, and kept in step after', async () => {
  const dir = tempDir();
  const first = openStore(dir);
  await first.bootstrap();
  const tenant = (await first.tenants.byHost('*'))!;
  const branch = (await first.branches.byName(tenant.id, 'main'))!;
  for (const [i, [firstName, last]] of [
    ['Anna', 'Weiß'],
    ['Søren', 'Østergaard'],
    ['Łukasz', 'Nowak'],
  ].entries())
    await first.users.insert(
      userRow({
        tenant_id: tenant.id,
        branch_id: branch.id,
        external_id: `m${i}`,
        first_name: firstName,
        last_name: last,
      }),
      TEST_AUDIT,
    );
  // The entries as migration 11 made them (letters as stored), at the version before 16, with
  // what the migrations after 16 made taken back (test/helpers/migrations.ts has their undo).
  const db = sqliteHandle(first);
  db.exec(MIGRATIONS[10] as string);
  for (const undo of UNDO_AFTER_SPELLED_OUT.sqlite) db.exec(undo);
  db.exec('PRAGMA user_version = 15');
  await first.close();

  const store = openStore(dir);
  try {
    const found = foundIn(store, branch.id);
    expect(await found('weiss')).toEqual(['m0']);
    expect(await found('weiß')).toEqual(['m0']);
    expect(await found('soren ostergaard')).toEqual(['m1']);
    expect(await found('lukasz')).toEqual(['m2']);
    // Changed and removed afterwards: the old entry goes (spelled out as it was written).
    await store.users.update(branch.id, 'm0', () => ({ last_name: 'Groß' }), TEST_AUDIT);
    await store.users.update(branch.id, 'm1', () => ({ status: 'deleted' }), TEST_AUDIT);
    expect(await found('weiss')).toEqual([]);
    expect(await found('gross')).toEqual(['m0']);
    expect(await found('soren')).toEqual([]);
    const check = sqliteHandle(store).prepare(
      `INSERT INTO users_fts (users_fts, rank) VALUES ('integrity-check', 1)`,
    );
    expect(() => check.run()).not.toThrow();
  } finally {
    await store.close();
  }
});

/** Names whose folds differ between scripts and rules (issue 41's review): each a trap. */
const TRICKY = [
  'Yıldız',
  'Yildiz',
  'Семёнов',
  'Семенов',
  'Γιώργος',
  'ΚΩΣΤΑΣ',
  'ガナ',
  'カナ',
  '이민호',
  '인성',
  'ＡＢＣ１２',
  'ﬁnn',
  'राम',
  'שָׁלוֹם',
  'Nº5 ½',
  'Straße',
  'Øre',
  'İlkay',
  'e\u0301lodie',
  'Ǆemal',
  "O'Brien-Smith",
  'anna.schmidt+42@Example.com',
];

/** Each user's tokens in the full-text index (but the scope's), and its `users.words`. */
function tokensAndWords(dir: string) {
  const db = new Database(join(dir, 'roster.db'));
  try {
    db.exec(`CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, users_fts, instance)`);
    const indexed = new Map<number, Set<string>>();
    for (const { doc, term } of db
      .prepare(`SELECT doc, term FROM temp.v WHERE col <> 'scope'`)
      .all() as { doc: number; term: string }[]) {
      indexed.set(doc, (indexed.get(doc) ?? new Set()).add(term));
    }
    return (
      db.prepare('SELECT rowid, words FROM users').all() as { rowid: number; words: string }[]
    ).map((u) => ({
      index: [...(indexed.get(u.rowid) ?? [])].sort(),
      words: u.words.trim().split(' ').filter(Boolean).sort(),
    }));
  } finally {
    db.close();
  }
}

test("users.words holds each user's own tokens of the full-text index, after every write of a searched field", async () => {
  const { dir, db } = withMainBranch();
  db.close();
  const store = openStore(dir);
  try {
    for (const [i, name] of TRICKY.entries()) {
      await store.users.insert(
        userRow({
          tenant_id: 1,
          branch_id: 1,
          external_id: `t${i}`,
          first_name: name,
          location: TRICKY[(i + 5) % TRICKY.length]!,
        }),
        TEST_AUDIT,
      );
    }
    const agree = () => {
      for (const u of tokensAndWords(dir)) expect(u.words).toEqual(u.index);
    };
    agree();
    const row = (await store.users.find(1, 't0'))!;
    for (const [i, field] of SEARCH_FIELDS.entries()) {
      const value = `${TRICKY[(i * 3) % TRICKY.length]} Qx${i}`;
      await store.users.update(1, row.id, () => ({ [field]: value }), TEST_AUDIT);
      agree();
    }
    // A write of a field search does not read keeps them.
    await store.users.update(1, row.id, () => ({ status: 'deactivated' }), TEST_AUDIT);
    agree();
  } finally {
    await store.close();
  }
});

test('a search walking the order finds what the full-text index finds, in every script; a row without its words is asked of the index', async () => {
  const { dir, db } = withMainBranch();
  db.close();
  const store = openStore(dir);
  for (const [i, name] of TRICKY.entries()) {
    await store.users.insert(
      userRow({ tenant_id: 1, branch_id: 1, external_id: `t${i}`, last_name: name }),
      TEST_AUDIT,
    );
  }
  // The same data read three ways: its few matches sorted (the index alone), by walking the
  // order and checking each row's words, and by a walk that gives up after 1 row.
  const walked = openStore(dir, dir, undefined, { searchSortsUpTo: 0 });
  const gaveUp = openStore(dir, dir, undefined, { searchSortsUpTo: 0, searchWalksUpTo: 1 });
  const queries = [
    ...TRICKY.flatMap((name) => [...name].slice(0, 2).join('')),
    ...TRICKY,
    'Yi',
    'Семе',
    'κω',
    'ab',
    'fi',
    'no5',
    '1',
    'ore',
    'il',
    'el',
    'dz',
    'o',
    'brien smith',
  ];
  const answers = async (from: typeof store) => {
    const out: string[] = [];
    for (const query of queries) {
      const page = await from.users.list({
        branchId: 1,
        statuses: ['activated'],
        query,
        sort: [{ key: 'lastName', dir: 'ASC' }],
        limit: 50,
        offset: 0,
      });
      out.push(`${query}: ${page.total} ${page.rows.map((r) => r.external_id).join(',')}`);
    }
    return out;
  };
  try {
    const byIndex = await answers(store);
    expect(await answers(walked)).toEqual(byIndex);
    expect(await answers(gaveUp)).toEqual(byIndex);
    // Words lost (a row written around the repo): the walk asks the index for those rows.
    const raw = new Database(join(dir, 'roster.db'));
    raw.exec('UPDATE users SET words = NULL');
    raw.close();
    expect(await answers(walked)).toEqual(byIndex);
    // And the walk does answer from the words: words that say otherwise are what it follows.
    const lie = new Database(join(dir, 'roster.db'));
    lie.exec(`UPDATE users SET words = ' zzz ' WHERE external_id = 't20'`);
    lie.close();
    const brien = async (from: typeof store) =>
      (
        await from.users.list({
          branchId: 1,
          statuses: ['activated'],
          query: 'brien',
          sort: [{ key: 'lastName', dir: 'ASC' }],
          limit: 50,
          offset: 0,
        })
      ).rows.map((r) => r.external_id);
    expect(await brien(store)).toEqual(['t20']);
    expect(await brien(walked)).toEqual([]);
  } finally {
    await Promise.all([store.close(), walked.close(), gaveUp.close()]);
  }
});

test('migration 20 writes the words of users written before it, in batches, telling its progress', async () => {
  const dir = tempDir();
  const db = new Database(join(dir, 'roster.db'));
  for (const [v, migration] of MIGRATIONS.slice(0, 19).entries()) {
    db.transaction(() => {
      if (typeof migration === 'string') db.exec(migration);
      else migration(db);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    })();
  }
  db.exec(`INSERT INTO tenants (host, created_at) VALUES ('*', 'now')`);
  db.exec(`INSERT INTO branches (tenant_id, name, created_at) VALUES (1, 'main', 'now')`);
  db.exec(`WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < 255)
    INSERT INTO users (id, tenant_id, branch_id, status, first_name, last_name, location, custom, created_at, updated_at)
    SELECT printf('%024d', k), 1, 1, 'activated', 'Jörg', printf('Nö%03d', k), 'Łódź', '{}', 'now', 'now' FROM i`);
  db.close();
  const told: string[] = [];
  const store = openStore(dir, dir, undefined, {
    searchSortsUpTo: 0,
    onMigration: (line) => told.push(line),
  });
  try {
    expect(told).toContainEqual(
      expect.stringMatching(new RegExp(`schema version 20 of ${MIGRATIONS.length} in`)),
    );
    const page = await store.users.list({
      branchId: 1,
      statuses: ['activated'],
      query: 'jorg lodz no0',
      sort: [{ key: 'lastName', dir: 'ASC' }],
      limit: 3,
      offset: 0,
    });
    expect(page.rows.map((r) => r.last_name)).toEqual(['Nö001', 'Nö002', 'Nö003']);
  } finally {
    await store.close();
  }
  // Its step over a copy, a batch of 10 at a time: progress every 10 batches, and at the end.
  const again = new Database(join(dir, 'roster.db'));
  try {
    again.exec('UPDATE users SET words = NULL');
    const progress: [number, number][] = [];
    usersWords(again, (done, total) => progress.push([done, total]), 10);
    expect(progress).toEqual([
      [100, 255],
      [200, 255],
      [255, 255],
    ]);
    expect(again.prepare('SELECT DISTINCT words FROM users WHERE rowid = 1').pluck().all()).toEqual(
      [' jorg no001 lodz '],
    );
  } finally {
    again.close();
  }
});

test('one short word in a wide scope: a count from the words alone caps only past the bound plus everyone outside the scope', async () => {
  const { dir, db } = withMainBranch();
  const insert = db.prepare(
    `INSERT INTO users (id, tenant_id, branch_id, status, first_name, last_name, custom, created_at, updated_at)
     VALUES (?, 1, 1, ?, ?, 'Lee', '{}', 'now', 'now')`,
  );
  // 5 activated "Mo"s (exactly the bound below); outside the scope, a "Mo" of each kind: a
  // deactivated one, a deleted one, one in another branch; and 40 activated others: the scope
  // is wide (users-list.ts wideScope).
  db.exec(`INSERT INTO branches (tenant_id, name, created_at) VALUES (1, 'other', 'now')`);
  const elsewhere = db.prepare(
    `INSERT INTO users (id, tenant_id, branch_id, status, first_name, last_name, custom, created_at, updated_at)
     VALUES (?, 1, 2, 'activated', 'Mo', 'Lee', '{}', 'now', 'now')`,
  );
  db.transaction(() => {
    for (let i = 0; i < 5; i++) insert.run(`a${i}`.padStart(24, '0'), 'activated', 'Mo');
    insert.run('d0'.padStart(24, '0'), 'deactivated', 'Mo');
    insert.run('x0'.padStart(24, '0'), 'deleted', 'Mo');
    elsewhere.run('b0'.padStart(24, '0'));
    for (let i = 0; i < 40; i++) insert.run(`o${i}`.padStart(24, '0'), 'activated', 'Ann');
  })();
  usersWords(db);
  db.close();
  const store = openStore(dir, dir, undefined, { searchSortsUpTo: 0 });
  try {
    const list = () =>
      store.users.list({
        branchId: 1,
        statuses: ['activated'],
        query: 'mo',
        sort: [{ key: 'lastName', dir: 'ASC' }],
        limit: 2,
        offset: 0,
        countUpTo: 5,
      });
    // Eight "Mo"s match the words, but three are outside: exactly 5, not "more than 5".
    const exact = await list();
    expect({ total: exact.total, totalExact: exact.totalExact }).toEqual({
      total: 5,
      totalExact: undefined,
    });
    // One more inside: past the bound.
    await store.users.insert(
      userRow({ tenant_id: 1, branch_id: 1, external_id: 'a5', first_name: 'Mo' }),
      TEST_AUDIT,
    );
    const capped = await list();
    expect({ total: capped.total, totalExact: capped.totalExact }).toEqual({
      total: 5,
      totalExact: false,
    });
    expect(capped.rows).toHaveLength(2);
  } finally {
    await store.close();
  }
});

test('one word in a wide scope: a capped count proven from the names that begin with it, each user so counted in scope and once', async () => {
  const { dir, db } = withMainBranch();
  const insert = db.prepare(
    `INSERT INTO users (id, tenant_id, branch_id, status, first_name, last_name, custom, created_at, updated_at)
     VALUES (?, 1, 1, ?, ?, ?, '{}', 'now', 'now')`,
  );
  let n = 0;
  const add = (status: string, first: string, last: string) =>
    insert.run(`u${n++}`.padStart(24, '0'), status, first, last);
  // Six Zanders written with the index's trigger away: the full-text index matches none of
  // them, so a capped total for `Za` comes from the names alone.
  const trigger = db
    .prepare(`SELECT sql FROM sqlite_master WHERE name = 'users_fts_insert'`)
    .pluck()
    .get() as string;
  db.exec('DROP TRIGGER users_fts_insert');
  for (let i = 0; i < 6; i++) add('activated', 'Ann', 'Zander');
  // And six Quills, proven by their first names alone.
  for (let i = 0; i < 6; i++) add('activated', 'Quill', 'Lee');
  db.exec(trigger);
  // U+19B0 is a letter to JavaScript and a separator to unicode61: `ᦰ` is no token, and
  // matches none of these.
  for (let i = 0; i < 6; i++) add('activated', 'Ann', '\u19B0xander');
  // Three whose both names begin with `Zo`, and five deactivated Zolls: in the index, and
  // exactly three match `zo` among the activated.
  for (let i = 0; i < 3; i++) add('activated', 'Zora', 'Zoll');
  for (let i = 0; i < 5; i++) add('deactivated', 'Ann', 'Zoll');
  for (let i = 0; i < 40; i++) add('activated', 'Ann', 'Lee');
  usersWords(db);
  db.close();
  const store = openStore(dir, dir, undefined, { searchSortsUpTo: 2 });
  try {
    const total = async (query: string) => {
      const page = await store.users.list({
        branchId: 1,
        statuses: ['activated'],
        query,
        sort: [{ key: 'lastName', dir: 'ASC' }],
        limit: 1,
        offset: 0,
        countUpTo: 4,
      });
      return [page.total, page.totalExact];
    };
    expect(await total('Za')).toEqual([4, false]);
    expect(await total('qu')).toEqual([4, false]);
    expect(await total('Zo')).toEqual([3, undefined]);
    expect(await total('\u19B0')).toEqual([0, undefined]);
  } finally {
    await store.close();
  }
});
