/**
 * SQLite searches on threads (src/store/sqlite/search-threads.ts), on a real database file. The
 * threads run the build's search-thread.js: a worker cannot load TypeScript, and `npm test`
 * builds before it runs vitest (the spawned CLI tests use the build too). Thread modules of the
 * test's own, written to a temp dir, mark which thread answered (the build's, each page tagged
 * with its threadId) or make a thread's faults: one that exits, one that exits before it is
 * ready, one whose search fails, one that never answers.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { StoreUnavailableError } from '../../src/store/errors.js';
import { openReader, statementCache } from '../../src/store/sqlite/db.js';
import { searchThreadsOf, sqliteHandle } from '../../src/store/sqlite/handle.js';
import { MAX_FAILURES, searchThreads } from '../../src/store/sqlite/search-threads.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { FEW_MATCHES } from '../../src/store/sqlite/users.repo.js';
import { snapshotList, usersList } from '../../src/store/sqlite/users-list.js';
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

/** Threads on the store's file, whose `here` (the main thread's search) and troubles are counted. */
function threadsOn(
  file: string,
  here: (f: ListFilter) => UserPage,
  {
    module = BUILT,
    count = 2,
    timeoutMs,
  }: { module?: URL; count?: number; timeoutMs?: number } = {},
) {
  const calls = { here: 0, troubles: [] as string[] };
  const threads = searchThreads({
    count,
    module,
    data: { file, fewMatches: FEW_MATCHES },
    here: (f) => {
      calls.here++;
      return here(f);
    },
    onTrouble: (line) => calls.troubles.push(line),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  files.defer(() => threads.close());
  return { threads, calls };
}

/** A thread module of the test's own (plain JavaScript, as a worker loads it). */
function threadModule(body: string): URL {
  const path = join(files.temp('roster-thread-module-'), 'thread.mjs');
  writeFileSync(path, `import { parentPort, threadId } from 'node:worker_threads';\n${body}\n`);
  return pathToFileURL(path);
}

/** A thread that is ready and answers no search (it ends when told to). */
const silentThread = () =>
  threadModule(
    "parentPort.on('message', (m) => { if (m.close) parentPort.close(); });\nparentPort.postMessage({ ready: true });",
  );

/** The build's thread, each page it answers tagged with the thread's id. */
const tagged = () =>
  threadModule(
    `const post = parentPort.postMessage.bind(parentPort);
parentPort.postMessage = (m) => post('page' in m ? { ...m, page: { ...m.page, thread: threadId } } : m);
await import(${JSON.stringify(BUILT.href)});`,
  );
const untagged = (page: UserPage) => {
  const { thread: _, ...rest } = page as UserPage & { thread?: number };
  return rest;
};
const threadOf = (page: UserPage) => (page as UserPage & { thread?: number }).thread;

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

test("a thread's search is one snapshot: a commit between its statements is not in its page", async () => {
  const { file, search } = await seeded(40);
  const reader = openReader(file);
  const writer = new Database(file);
  files.defer(() => {
    reader.close();
    writer.close();
  });
  const cached = statementCache(reader);
  // Another connection commits as the page's rows are about to be read by rowid, after the
  // matches were found: the first matching user is deleted (a status, as the store deletes).
  let between: (() => void) | undefined;
  const prepared = (sql: string) => {
    if (sql.startsWith('SELECT users.id')) between?.();
    return cached(sql, true);
  };
  const ask = search('Øster');
  const before = usersList(reader, prepared, FEW_MATCHES)(ask);
  expect(before.rows.length).toBeGreaterThan(1);
  const victim = before.rows[0]!.external_id!;
  const deleteVictim = (status: string) => () => {
    writer.prepare('UPDATE users SET status = ? WHERE external_id = ?').run(status, victim);
    between = undefined;
  };
  // Each call one read transaction: the page is the one from before the commit.
  between = deleteVictim('deleted');
  expect(snapshotList(reader, prepared, FEW_MATCHES)(ask)).toEqual(before);
  writer.prepare("UPDATE users SET status = 'activated' WHERE external_id = ?").run(victim);
  // Without it (as the main thread runs it, where no commit can come between), the page would
  // show a deleted user under status=activated.
  between = deleteVictim('deleted');
  const torn = usersList(reader, prepared, FEW_MATCHES)(ask);
  expect(torn.rows[0]).toMatchObject({ external_id: victim, status: 'deleted' });
});

test('two searches at once run on two threads, each answered with its own page', async () => {
  const { store, file, search } = await seeded();
  const { threads, calls } = threadsOn(
    file,
    (f) => {
      throw new Error(`not here: ${f.query}`);
    },
    { module: tagged() },
  );
  expect(await threads.ready()).toBe(true);
  const asks = ['Mü', 'Schm', 'Øster', 'anna', 'jörg', 'straße', 'mads', '王'].map((q) =>
    search(q),
  );
  const pages = await Promise.all(asks.map((a) => threads.list(a)));
  for (const [i, page] of pages.entries()) {
    expect(untagged(page)).toEqual(await store.users.list(asks[i]!));
  }
  // The first two went to the two idle threads at once.
  expect(new Set(pages.map(threadOf)).size).toBe(2);
  expect(calls.here).toBe(0);
});

test("a search asked before a thread is ready runs in the main thread, and so does a lost thread's", async () => {
  const { store, file, search } = await seeded(30);
  // Ready, then gone with the first search it is given: a thread whose code fails.
  const exits = threadModule(
    "parentPort.on('message', () => process.exit(3));\nparentPort.postMessage({ ready: true });",
  );
  const { threads, calls } = threadsOn(file, (f) => sqliteSearch(store, f), {
    module: exits,
    count: 1,
  });
  const ask = search('Schm');
  const expected = await store.users.list(ask);
  // Not started yet: the first runs here while the thread starts.
  expect(await threads.list(ask)).toEqual(expected);
  expect(calls.here).toBe(1);
  for (let lost = 1; lost <= MAX_FAILURES; lost++) {
    expect(await threads.ready()).toBe(true);
    expect(await threads.list(ask)).toEqual(expected);
    expect(calls.here).toBe(1 + lost);
    expect(calls.troubles).toHaveLength(lost);
  }
  expect(calls.troubles.at(0)).toMatch(/exited \(code 3\).*started again/);
  expect(calls.troubles.at(-1)).toMatch(/searches run in the main thread from now on/);
  // After MAX_FAILURES lost, no thread is started again: every search runs here.
  expect(await threads.ready()).toBe(false);
  const started = threads.started;
  expect(await threads.list(ask)).toEqual(expected);
  expect(threads.started).toBe(started);
  expect(calls.here).toBe(2 + MAX_FAILURES);
});

test('threads that die before they are ready are replaced while waited for, then given up', async () => {
  const { file } = await seeded(1);
  const dies = threadModule('process.exit(4);');
  const { threads, calls } = threadsOn(file, () => ({ total: 0, rows: [] }), {
    module: dies,
    count: 2,
  });
  expect(await threads.ready()).toBe(false);
  expect(calls.troubles).toHaveLength(MAX_FAILURES);
  expect(threads.running).toBe(0);
});

test("a thread's failed search is that search's error, with its code, not run again here", async () => {
  const { file, search } = await seeded(5);
  const fails = threadModule(
    "parentPort.on('message', (m) => m.close ? parentPort.close() : parentPort.postMessage({ id: m.id, error: { message: 'disk I/O error', code: 'SQLITE_IOERR_READ' } }));\nparentPort.postMessage({ ready: true });",
  );
  const { threads, calls } = threadsOn(file, () => ({ total: 0, rows: [] }), {
    module: fails,
    count: 1,
  });
  expect(await threads.ready()).toBe(true);
  await expect(threads.list(search('x'))).rejects.toMatchObject({
    message: 'disk I/O error',
    code: 'SQLITE_IOERR_READ',
  });
  expect(calls.here).toBe(0);
});

test('a search a thread does not answer in time is refused as unavailable, and the thread replaced', async () => {
  const { file, search } = await seeded(5);
  const silent = silentThread();
  const { threads, calls } = threadsOn(file, () => ({ total: 0, rows: [] }), {
    module: silent,
    count: 1,
    timeoutMs: 50,
  });
  expect(await threads.ready()).toBe(true);
  const refused = threads.list(search('x'));
  await expect(refused).rejects.toBeInstanceOf(StoreUnavailableError);
  await expect(refused).rejects.toThrow(/longer than 0.05 s/);
  expect(calls.here).toBe(0);
  expect(calls.troubles).toEqual([
    expect.stringMatching(/took longer than 0.05 s and was stopped/),
  ]);
  expect(await threads.ready()).toBe(true);
  expect(threads.started).toBe(2);
});

test('closing answers what a thread still had, in the main thread, and ends the threads', async () => {
  const { store, file, search } = await seeded(10);
  // A thread that never answers a search: its search is still answered, by the close.
  const silent = silentThread();
  const { threads, calls } = threadsOn(file, (f) => sqliteSearch(store, f), {
    module: silent,
    count: 1,
  });
  expect(await threads.ready()).toBe(true);
  const pending = threads.list(search('anna'));
  await threads.close();
  expect((await pending).total).toBeGreaterThan(0);
  expect(calls.here).toBe(1);
  expect(threads.running).toBe(0);
  expect(await threads.ready()).toBe(false);
  expect(calls.troubles).toEqual([]);
});

test('a reader connection refuses writes', async () => {
  const { file } = await seeded(1);
  const reader = openReader(file);
  files.defer(() => reader.close());
  expect(() => reader.exec("UPDATE users SET first_name = 'x'")).toThrow(/readonly|read-only/i);
  expect(reader.prepare('SELECT count(*) FROM users').pluck().get()).toBe(1);
});

test('a store opened with search threads answers its searches from them, and ends them on close', async () => {
  const { dir, store: writer, search } = await seeded(50);
  const expected = await writer.users.list(search('Mü'));
  await writer.close();
  const store = openSqliteStore(dir, dir, undefined, {
    searchThreads: 2,
    searchThreadModule: tagged(),
  });
  const threads = searchThreadsOf(store)!;
  expect(await threads.ready()).toBe(true);
  const page = await store.users.list(search('Mü'));
  expect(threadOf(page)).toBeTypeOf('number');
  expect(untagged(page)).toEqual(expected);
  // A list without a query stays in the main thread.
  expect(threadOf(await store.users.list({ ...search('x'), query: undefined }))).toBeUndefined();
  await store.close();
  expect(threads.running).toBe(0);
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
