/**
 * SQLite searches on threads (src/store/sqlite/search-threads.ts), on a real database file. The
 * threads run the build's search-thread.js: a worker cannot load TypeScript, and `npm test`
 * builds before it runs vitest (the spawned CLI tests use the build too). A thread's faults are
 * made by thread modules of the test's own, written to a temp dir: a thread whose code exits,
 * and one whose search fails.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { openReader, statementCache } from '../../src/store/sqlite/db.js';
import { sqliteHandle } from '../../src/store/sqlite/handle.js';
import { MAX_FAILURES, searchThreads } from '../../src/store/sqlite/search-threads.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { FEW_MATCHES } from '../../src/store/sqlite/users.repo.js';
import { usersList } from '../../src/store/sqlite/users-list.js';
import type { Store } from '../../src/store/store.js';
import type { ListFilter, UserPage } from '../../src/store/types.js';
import { TEST_AUDIT } from '../helpers/audit.js';
import { scratch } from '../helpers/scratch.js';
import { userRow } from '../helpers/user-row.js';

const BUILT = new URL('../../dist/store/sqlite/search-thread.js', import.meta.url);

const files = scratch();
afterEach(() => files.cleanup());

const NAMES = ['Müller', 'Möller', 'Schmidt', 'Schmitt', 'Øster', 'Straße', 'Nguyễn', '王'];

async function seeded(users = 300, opts: Parameters<typeof openSqliteStore>[3] = {}) {
  const dir = files.temp('roster-search-threads-');
  const store = openSqliteStore(dir, dir, undefined, opts);
  files.defer(async () => {
    if (sqliteHandle(store).open) await store.close();
  });
  await store.bootstrap();
  const tenant = (await store.tenants.byHost('*'))!;
  const branch = (await store.branches.byName(tenant.id, 'main'))!;
  const at = { tenant_id: tenant.id, branch_id: branch.id };
  await Promise.all(
    Array.from({ length: users }, (_, i) =>
      store.users.insert(
        userRow({
          ...at,
          external_id: `st-${i}`,
          email: `person.${i}@example.com`,
          email_norm: `person.${i}@example.com`,
          first_name: ['Anna', 'Mads', 'Jörg', 'İlker'][i % 4]!,
          last_name: `${NAMES[i % NAMES.length]}${i % 3 ? '' : `-${NAMES[(i + 3) % NAMES.length]}`}`,
          status: i % 5 ? 'activated' : 'pending',
        }),
        TEST_AUDIT,
      ),
    ),
  );
  const search = (query: string, more: Partial<ListFilter> = {}): ListFilter => ({
    branchId: branch.id,
    statuses: ['activated'],
    query,
    sort: [
      { key: 'lastName', dir: 'ASC' },
      { key: 'firstName', dir: 'ASC' },
    ],
    limit: 25,
    offset: 0,
    countUpTo: 10_000,
    ...more,
  });
  return { dir, store, at, file: sqliteHandle(store).name, search };
}

/** Threads on the store's file, whose `here` (the main thread's search) is counted. */
function threadsOn(file: string, here: (f: ListFilter) => UserPage, module = BUILT, count = 2) {
  const calls = { here: 0 };
  const threads = searchThreads({
    count,
    module,
    data: { file, fewMatches: FEW_MATCHES },
    here: (f) => {
      calls.here++;
      return here(f);
    },
  });
  files.defer(() => threads.close());
  return { threads, calls };
}

/** A thread module of the test's own (plain JavaScript, as a worker loads it). */
function threadModule(body: string): URL {
  const path = join(files.temp('roster-thread-module-'), 'thread.mjs');
  writeFileSync(path, `import { parentPort } from 'node:worker_threads';\n${body}\n`);
  return pathToFileURL(path);
}

test('the build has a search thread to start (npm test builds before vitest runs)', () => {
  expect(existsSync(BUILT), `${BUILT.pathname}: run npm run build`).toBe(true);
});

test("a thread's answers are the main thread's, page by page, and the main thread runs none of them", async () => {
  const { dir, file, search } = await seeded();
  const inMain = openSqliteStore(dir);
  files.defer(() => inMain.close());
  const { threads, calls } = threadsOn(file, () => {
    throw new Error('not here');
  });
  expect(await threads.ready()).toBe(true);
  const asks = [
    search('Mü'),
    search('schm'),
    search('SCHMIDT anna'),
    search('strasse'),
    search('oster', { statuses: ['activated', 'pending'] }),
    search('nguyen', {
      sort: [
        { key: 'firstName', dir: 'DESC' },
        { key: 'lastName', dir: 'ASC' },
      ],
    }),
    search('王'),
    search('ilker', { limit: 7, offset: 3 }),
    search('person', { limit: 1000, countUpTo: 10 }),
    search('nobody-has-this'),
  ];
  for (const ask of asks) {
    const page = await threads.list(ask);
    expect(page).toEqual(await inMain.users.list(ask));
    // Cursors made on a thread go on in the main thread, and the other way round.
    if (page.next) {
      const after = { ...ask, offset: 0, after: page.next };
      expect(await threads.list(after)).toEqual(await inMain.users.list(after));
    }
  }
  expect(calls.here).toBe(0);
});

test('a search on a thread finds what a write answered just before (the write is committed first)', async () => {
  const { store, at, file, search } = await seeded(20);
  const { threads, calls } = threadsOn(file, () => {
    throw new Error('not here');
  });
  expect(await threads.ready()).toBe(true);
  expect((await threads.list(search('Zebedäus'))).total).toBe(0);
  await store.users.insert(
    userRow({ ...at, external_id: 'new-1', first_name: 'Zebedäus', last_name: 'Neu' }),
    TEST_AUDIT,
  );
  const found = await threads.list(search('zebedaus'));
  expect(found.rows.map((r) => r.external_id)).toEqual(['new-1']);
  await store.users.update(at.branch_id, 'new-1', () => ({ first_name: 'Zacharias' }), TEST_AUDIT);
  expect((await threads.list(search('zebedaus'))).total).toBe(0);
  expect((await threads.list(search('zacharias'))).total).toBe(1);
  expect(calls.here).toBe(0);
});

test('two searches at once run on two threads, each answered with its own page', async () => {
  const { store, file, search } = await seeded();
  const { threads } = threadsOn(file, (f) => {
    throw new Error(`not here: ${f.query}`);
  });
  expect(await threads.ready()).toBe(true);
  const asks = ['Mü', 'Schm', 'Øster', 'anna', 'jörg', 'straße', 'mads', '王'].map((q) =>
    search(q),
  );
  const pages = await Promise.all(asks.map((a) => threads.list(a)));
  for (const [i, page] of pages.entries()) expect(page).toEqual(await store.users.list(asks[i]!));
  expect(threads.started).toBe(2);
});

test("a search asked before a thread is ready runs in the main thread, and so does a lost thread's", async () => {
  const { store, file, search } = await seeded(30);
  // Ready, then gone with the first search it is given: a thread whose code fails.
  const exits = threadModule(
    "parentPort.on('message', () => process.exit(3));\nparentPort.postMessage({ ready: true });",
  );
  const { threads, calls } = threadsOn(file, (f) => sqliteSearch(store, f), exits, 1);
  const ask = search('Schm');
  const expected = await store.users.list(ask);
  // Not started yet: the first runs here while the thread starts.
  expect(await threads.list(ask)).toEqual(expected);
  expect(calls.here).toBe(1);
  for (let lost = 1; lost <= MAX_FAILURES; lost++) {
    expect(await threads.ready()).toBe(true);
    expect(await threads.list(ask)).toEqual(expected);
    expect(calls.here).toBe(1 + lost);
  }
  // After MAX_FAILURES lost in a row, no thread is started again: every search runs here.
  expect(await threads.ready()).toBe(false);
  const started = threads.started;
  expect(await threads.list(ask)).toEqual(expected);
  expect(threads.started).toBe(started);
  expect(calls.here).toBe(2 + MAX_FAILURES);
});

test("a thread's failed search is that search's error, with its code, not run again here", async () => {
  const { file, search } = await seeded(5);
  const fails = threadModule(
    "parentPort.on('message', ({ id }) => parentPort.postMessage({ id, error: { message: 'disk I/O error', code: 'SQLITE_IOERR_READ' } }));\nparentPort.postMessage({ ready: true });",
  );
  const { threads, calls } = threadsOn(file, () => ({ total: 0, rows: [] }), fails, 1);
  expect(await threads.ready()).toBe(true);
  await expect(threads.list(search('x'))).rejects.toMatchObject({
    message: 'disk I/O error',
    code: 'SQLITE_IOERR_READ',
  });
  expect(calls.here).toBe(0);
});

test('closing answers what a thread still had, in the main thread, and stops the threads', async () => {
  const { store, file, search } = await seeded(10);
  // A thread that never answers: its search is still answered, by the close.
  const silent = threadModule(
    "parentPort.on('message', () => {});\nparentPort.postMessage({ ready: true });",
  );
  const { threads, calls } = threadsOn(file, (f) => sqliteSearch(store, f), silent, 1);
  expect(await threads.ready()).toBe(true);
  const pending = threads.list(search('anna'));
  await threads.close();
  expect((await pending).total).toBeGreaterThan(0);
  expect(calls.here).toBe(1);
  expect(await threads.ready()).toBe(false);
});

test('a reader connection refuses writes', async () => {
  const { file } = await seeded(1);
  const reader = openReader(file);
  files.defer(() => reader.close());
  expect(() => reader.exec("UPDATE users SET first_name = 'x'")).toThrow(/readonly|read-only/i);
  expect(reader.prepare('SELECT count(*) FROM users').pluck().get()).toBe(1);
});

test('a store opened with search threads gives the same answers, and closes them', async () => {
  const { dir, store: writer, search } = await seeded(50);
  const expected = await writer.users.list(search('Mü'));
  await writer.close();
  const store = openSqliteStore(dir, dir, undefined, {
    searchThreads: 2,
    searchThreadModule: BUILT,
  });
  for (let i = 0; i < 5; i++) expect(await store.users.list(search('Mü'))).toEqual(expected);
  await store.close();
});

/** The store's own search, run synchronously as `here` runs it, on the store's connection. */
function sqliteSearch(store: Store, f: ListFilter) {
  const db = sqliteHandle(store);
  let list = lists.get(db);
  if (!list) {
    const cached = statementCache(db);
    list = usersList(db, (sql) => cached(sql, true), FEW_MATCHES);
    lists.set(db, list);
  }
  return list(f);
}
const lists = new WeakMap<object, (f: ListFilter) => UserPage>();
