/**
 * PostgreSQL alone: what `serve` refuses at start (one clear line each), replicas starting at
 * once, and the database going away or stalling mid-request (503, then recovery without a
 * restart). Runs in the PostgreSQL project only (ROSTER_TEST_DATABASE).
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES, type ServerConfig } from '../../src/server/config.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { postgresHandle } from '../../src/store/postgres/handle.js';
import { MIGRATIONS } from '../../src/store/postgres/schema.js';
import type { Store } from '../../src/store/store.js';
import { TEST_AUDIT } from '../helpers/audit.js';
import { freshDatabase, sql, TEST_DATABASE } from '../helpers/database.js';
import { captureState, restoreState } from '../helpers/database-state.js';
import { engineAvailable } from '../helpers/engine.js';
import { pgRelay } from '../helpers/pg-relay.js';
import { requester, startServer, type TestServer, USERS_V2, V3 } from '../helpers/server.js';
import { userRow } from '../helpers/user-row.js';
import { fixtures, uploadBody } from '../server/media/media-helpers.js';

const dirs: string[] = [];
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'roster-pg-'));
  dirs.push(d);
  return d;
};
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const open = (url: string) =>
  openStore({ dataDir: dataDir(), target: databaseTarget(url, '/unused') });

/** Runs statements as the test's administrative user, on `database` (default: the test URL's). */
async function admin<R extends pg.QueryResultRow>(text: string, database?: string) {
  const url = new URL(TEST_DATABASE!);
  if (database) url.pathname = `/${database}`;
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  try {
    return (await c.query<R>(text)).rows;
  } finally {
    await c.end();
  }
}

const nameOf = (url: string) => new URL(url).pathname.slice(1);

/** The test URL with another password: logs in only where the server checks none. */
const wrongPasswordUrl = () => {
  const url = new URL(TEST_DATABASE!);
  url.password = 'not-the-password';
  return url.toString();
};

/**
 * A default `initdb` cluster trusts local connections (`trust` in pg_hba.conf): any password
 * logs in, so the wrong-password refusal cannot be seen there. Asked of the server itself.
 */
async function serverChecksPasswords(): Promise<boolean> {
  const c = new pg.Client({ connectionString: wrongPasswordUrl() });
  try {
    await c.connect();
    await c.end();
    return false;
  } catch {
    return true;
  }
}
const checksPasswords = engineAvailable(
  'the wrong-password test',
  await serverChecksPasswords(),
  'the PostgreSQL server accepts any password (trust in pg_hba.conf); use md5 or scram-sha-256 for host connections, as CI does',
);

describe('start-up refuses a database it cannot use, with one line and no password', () => {
  test('nothing listening there', async () => {
    const url = 'postgres://roster:s3cret-pw@127.0.0.1:9/roster';
    const err = await open(url).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('DatabaseSetupError');
    expect((err as Error).message).toMatch(
      /^cannot reach the database postgres:\/\/roster:\*\*\*@/,
    );
    expect((err as Error).message).not.toContain('s3cret-pw');
  });

  test.runIf(checksPasswords)('a wrong password', async () => {
    const err = (await open(wrongPasswordUrl()).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/^cannot log in to the database .*check the user and password/);
    expect(err.message).not.toContain('not-the-password');
  });

  test('a database that does not exist', async () => {
    const url = new URL(TEST_DATABASE!);
    url.pathname = '/roster_no_such_database';
    const err = (await open(url.toString()).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/does not exist.*createdb/);
  });

  test('a database that is not UTF-8, or whose LC_CTYPE is C', async () => {
    for (const [suffix, options, expected] of [
      ['ascii', "ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C'", /is encoded SQL_ASCII/],
      ['cctype', "ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'", /LC_CTYPE C, which makes search/],
    ] as const) {
      const name = `roster_test_${suffix}_${process.pid}`;
      await admin(`CREATE DATABASE ${name} TEMPLATE template0 ${options}`);
      drops.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => {}));
      const url = new URL(TEST_DATABASE!);
      url.pathname = `/${name}`;
      const err = (await open(url.toString()).catch((e: Error) => e)) as Error;
      expect(err.message).toMatch(expected);
      // Nothing was created in it.
      expect(await admin("SELECT to_regclass('public.users') AS t", name)).toEqual([{ t: null }]);
    }
  });

  test('a schema newer than this roster', async () => {
    const db = await freshDatabase({ migrated: false });
    drops.push(db.drop);
    await (await open(db.url)).close();
    await admin(
      `INSERT INTO schema_migrations (version) VALUES (${MIGRATIONS.length + 1})`,
      nameOf(db.url),
    );
    const err = (await open(db.url).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(
      /schema of .* \(version \d+\) is newer than this roster .*upgrade roster/,
    );
  });

  test('a migration the database refuses: names it and the cause, rolled back; not "cannot reach"', async () => {
    // As met upgrading a copy at 1M users: migration 5's indexes partly made by hand before.
    const db = await freshDatabase({ migrated: false });
    drops.push(db.drop);
    await (await open(db.url)).close();
    const name = nameOf(db.url);
    await admin('DELETE FROM schema_migrations WHERE version >= 5', name);
    await admin('DROP INDEX users_by_external_id_order', name);
    const err = (await open(db.url).catch((e: Error) => e)) as Error;
    expect(err.name).toBe('DatabaseSetupError');
    expect(err.message).toMatch(
      new RegExp(
        `^migration 5 of ${MIGRATIONS.length} failed in the database postgres://[^ ]*\\*\\*\\*@[^ ]*/${name}: ` +
          'relation "users_by_first_name" already exists \\(42P07\\); it was rolled back and the schema is still at version 4',
      ),
    );
    expect(err.message).not.toContain('cannot reach');
    expect(await admin('SELECT max(version) AS v FROM schema_migrations', name)).toEqual([
      { v: 4 },
    ]);
    expect(await admin("SELECT to_regclass('users_by_external_id_order') AS i", name)).toEqual([
      { i: null },
    ]);
  });

  test('a user who may not create the unaccent extension', async () => {
    const db = await freshDatabase({ migrated: false });
    drops.push(db.drop);
    const role = `roster_noext_${process.pid}`;
    await admin(`DROP ROLE IF EXISTS ${role}`);
    await admin(`CREATE ROLE ${role} LOGIN PASSWORD 'pw'`);
    drops.push(() => admin(`DROP ROLE IF EXISTS ${role}`).then(() => {}));
    await admin(`GRANT CONNECT ON DATABASE ${nameOf(db.url)} TO ${role}`);
    await admin(`GRANT CREATE ON SCHEMA public TO ${role}`, nameOf(db.url));
    const url = new URL(db.url);
    url.username = role;
    url.password = 'pw';
    const err = (await open(url.toString()).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/cannot create the unaccent extension .*CREATE EXTENSION unaccent/);
  });
});

/** A store on a database of its own, bootstrapped: its pool, default tenant and main branch. */
async function freshStore() {
  const { url, drop } = await freshDatabase({ migrated: false });
  drops.push(drop);
  const store = (await open(url)) as Store & { pool: pg.Pool };
  await store.bootstrap();
  const tenant = (await store.tenants.byHost('*'))!;
  const main = (await store.branches.byName(tenant.id, 'main'))!;
  return { store, tenant, main };
}

test('resolves at once of a kept token share their credentials-epoch reads', async () => {
  const { store, main } = await freshStore();
  try {
    const { secret } = await store.tokens.create(
      main.id,
      'shared',
      ['users:read'],
      ['api'],
      TEST_AUDIT,
    );
    await store.credentials.resolve('localhost', secret); // kept from here on
    let statements = 0;
    postgresHandle(store).on('acquire', () => {
      statements++;
    });
    const all = await Promise.all(
      Array.from({ length: 20 }, () => store.credentials.resolve('localhost', secret)),
    );
    expect(all.every((c) => c !== undefined)).toBe(true);
    // One read sent at once, and one more for everyone who asked while it was out.
    expect(statements).toBe(2);
  } finally {
    await store.close();
  }
});

test('finds at once go in shared statements, each answered by its own key', async () => {
  const { store, tenant, main } = await freshStore();
  try {
    const other = await store.branches.add(tenant.id, 'other');
    const insert = (branchId: number, id: string, externalId: string, status = 'activated') =>
      store.users.insert(
        userRow({
          id,
          tenant_id: tenant.id,
          branch_id: branchId,
          status: status as 'activated',
          external_id: externalId,
          first_name: externalId,
        }),
        TEST_AUDIT,
      );
    const ids = Array.from({ length: 10 }, (_, i) => `6b05${String(i).padStart(20, '0')}`);
    for (const [i, id] of ids.entries()) await insert(main.id, id, `e-${i}`);
    // An externalId shaped like another user's id: the id wins, as on SQLite.
    await insert(main.id, '6b05ffffffffffffffffffff', ids[3]!);
    await insert(main.id, '6b05eeeeeeeeeeeeeeeeeeee', 'gone', 'deleted');
    await insert(other.id, '6b05dddddddddddddddddddd', 'elsewhere');

    let statements = 0;
    postgresHandle(store).on('acquire', () => {
      statements++;
    });
    const keys = [...ids.map((_, i) => `e-${i}`), ids[3]!, 'gone', 'elsewhere', 'nobody', ids[7]!];
    const found = await Promise.all(keys.map((k) => store.users.find(main.id, k)));
    expect(found.map((u) => u?.first_name)).toEqual([
      ...ids.map((_, i) => `e-${i}`),
      'e-3',
      undefined,
      undefined,
      undefined,
      'e-7',
    ]);
    // One statement sent at once, and one more for every key asked while it was out.
    expect(statements).toBe(2);
  } finally {
    await store.close();
  }
});

test('replicas starting at once on an empty database come up on one schema and one admin', async () => {
  const db = await freshDatabase({ migrated: false });
  drops.push(db.drop);
  const stores: Store[] = await Promise.all(Array.from({ length: 4 }, () => open(db.url)));
  try {
    const created = await Promise.all(stores.map((s) => s.bootstrap()));
    expect(created.filter(Boolean)).toHaveLength(1);
    const versions = await admin<{ version: number }>(
      'SELECT version FROM schema_migrations ORDER BY version',
      nameOf(db.url),
    );
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(await stores[3]!.tokens.list()).toHaveLength(1);
  } finally {
    for (const s of stores) await s.close();
  }
});

test('the database going away answers 503 with Retry-After, and the server recovers by itself', async () => {
  const s = await startServer();
  try {
    const name = nameOf(s.database!);
    expect((await s.req('GET', '/api/users')).status).toBe(200);
    await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
    );
    const down = await s.req('GET', '/api/users');
    expect(down.status).toBe(503);
    const notReady = await s.req('GET', '/readyz', { token: null });
    expect(notReady.status).toBe(503);
    expect(notReady.json).toEqual({ status: 'database unavailable' });
    expect(down.headers['retry-after']).toBe('2');
    expect(down.json).toMatchObject({ identifier: 50300, type: 'ServiceUnavailableException' });
    expect(down.json.message).toContain('retry in a few seconds');
    const write = await s.req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ email: 'down@example.com' }),
    });
    expect(write.status).toBe(503);
    await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    expect((await s.req('GET', '/api/users')).status).toBe(200);
    expect((await s.req('GET', '/readyz', { token: null })).status).toBe(200);
    // The refused write did not happen.
    const pending = await s.req('GET', '/api/users?status=pending', {
      headers: { accept: USERS_V2 },
    });
    expect(pending.json.total).toBe(0);
  } finally {
    await s.close();
  }
});

test('a statement slower than the statement timeout is a 503, never a hung request', async () => {
  const s = await startServer({}, { statementTimeoutMs: 300 });
  const url = new URL(TEST_DATABASE!);
  url.pathname = `/${nameOf(s.database!)}`;
  const locker = new pg.Client({ connectionString: url.toString() });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
    const slow = await s.req('GET', '/api/users');
    expect(slow.status).toBe(503);
    expect(slow.headers['retry-after']).toBe('2');
    await locker.query('ROLLBACK');
    expect((await s.req('GET', '/api/users')).status).toBe(200);
  } finally {
    await locker.end();
    await s.close();
  }
});

/** Another replica of `a`'s service, in this process: its own data dir, the same database. */
async function replicaOf(a: TestServer, config: Partial<ServerConfig> = {}) {
  const dir = dataDir();
  const store = await openStore({ dataDir: dir, target: databaseTarget(a.database, dir) });
  const logs: string[] = [];
  const app = await createApp({
    store,
    config: {
      dataDir: dir,
      vendor: 'service',
      maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
      ...config,
    },
    log: (l) => logs.push(l),
  });
  return {
    app,
    logs,
    async close() {
      await app.close();
      await store.close();
    },
  };
}

test('a search the planner takes for rare but that is not: read, found many, then walked in order', async () => {
  const { url, drop } = await freshDatabase({ migrated: false });
  drops.push(drop);
  const sorting = await open(url);
  await sorting.bootstrap();
  const tenant = (await sorting.tenants.byHost('*'))!;
  const main = (await sorting.branches.byName(tenant.id, 'main'))!;
  // Statistics from before any user: the planner guesses for every word, and low.
  await admin('ANALYZE users', nameOf(url));
  for (const [i, last] of ['Zorn', 'Zapf', 'Zuse', 'Zeller', 'Ziegler', 'Zander'].entries())
    await sorting.users.insert(
      userRow({ tenant_id: tenant.id, branch_id: main.id, external_id: `z${i}`, last_name: last }),
      TEST_AUDIT,
    );
  const [explained] = await admin<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM users WHERE branch_id = ${main.id}
     AND status = ANY('{activated}') AND search @@ to_tsquery('simple', 'z:*')`,
    nameOf(url),
  );
  const expected = explained!['QUERY PLAN'][0].Plan['Plan Rows'];
  expect(expected).toBeLessThanOrEqual(2);
  // Up to 2 matches read whole: this search reads 3, so it walks the name order.
  const walking = await openStore({
    dataDir: dataDir(),
    target: databaseTarget(url, '/unused'),
    searchSortsUpTo: 2,
  });
  try {
    for (const offset of [0, 2, 4, 6]) {
      const list = (s: Store) =>
        s.users.list({
          branchId: main.id,
          statuses: ['activated'],
          query: 'z',
          sort: [{ key: 'lastName', dir: 'ASC' }],
          limit: 2,
          offset,
          countUpTo: 4,
        });
      const page = await list(walking);
      expect(page).toEqual(await list(sorting));
      expect([page.total, page.totalExact, page.rows.map((r) => r.last_name)]).toEqual([
        4,
        false,
        ['Zander', 'Zapf', 'Zeller', 'Ziegler', 'Zorn', 'Zuse', undefined, undefined]
          .slice(offset, offset + 2)
          .filter(Boolean),
      ]);
    }
  } finally {
    await walking.close();
    await sorting.close();
  }
});

test("a one-word search's capped count proven from the name keys, only where every user so counted matches", async () => {
  const { url, drop } = await freshDatabase();
  drops.push(drop);
  // Up to 2 matches sorted whole: more are counted (and 0 are, to tell an offset past the end).
  const store = await openStore({
    dataDir: dataDir(),
    target: databaseTarget(url, '/unused'),
    searchSortsUpTo: 2,
  });
  try {
    await store.bootstrap();
    const tenant = (await store.tenants.byHost('*'))!;
    let n = 0;
    const branchOf = async (
      rows: { last?: string | null; first?: string; status?: 'deactivated' }[],
    ) => {
      const branch = await store.branches.add(tenant.id, `proof-${n++}`);
      for (const [i, r] of rows.entries())
        await store.users.insert(
          userRow({
            tenant_id: tenant.id,
            branch_id: branch.id,
            external_id: `${branch.id}-${i}`,
            last_name: r.last === undefined ? 'Other' : r.last,
            first_name: r.first ?? 'Someone',
            ...(r.status ? { status: r.status, activated_at: null } : {}),
          }),
          TEST_AUDIT,
        );
      return branch.id;
    };
    const total = async (branchId: number, query: string) => {
      const page = await store.users.list({
        branchId,
        statuses: ['activated'],
        query,
        sort: [{ key: 'lastName', dir: 'ASC' }],
        limit: 1,
        offset: 0,
        countUpTo: 4,
      });
      return [page.total, page.totalExact];
    };
    const five = <T>(row: T) => Array.from({ length: 5 }, () => row);
    // Five users by last name, or by first name, are more than the bound of 4. Their vectors
    // emptied behind the store's back, the full-text index matches none of them: a capped
    // total here comes from the names alone.
    const byLast = await branchOf(five({ last: 'Zander' }));
    const byFirst = await branchOf([
      ...five({ first: 'Zora' }).slice(0, 3),
      ...five({ last: 'Zoll' }).slice(0, 2),
    ]);
    // The first-name range alone, where the last names are NULL.
    const byFirstAlone = await branchOf(five({ last: null, first: 'Zora' }));
    await admin(
      `UPDATE users SET search = ''::tsvector WHERE branch_id IN (${byLast}, ${byFirst}, ${byFirstAlone})`,
      nameOf(url),
    );
    expect(await total(byLast, 'Za')).toEqual([4, false]);
    expect(await total(byFirst, 'zo')).toEqual([4, false]);
    expect(await total(byFirstAlone, 'zo')).toEqual([4, false]);
    // Keys that begin with the word, users that do not match it, or not more than the bound:
    // the count is the index's. `a½` searches `a12:*` (unaccent spells ½ out as ` 1/2`: A½x's
    // tokens are a, 1 and 2x); a token over 2 KB is not in a tsvector (ⅷ is viii: 600 of them
    // a key of 1,800 bytes, a token of 2,400); a user outside the statuses asked is not
    // counted; one whose both names begin with the word is counted once; exactly the bound is
    // exact; a second word the names say nothing of.
    const cases: [string, { last?: string; first?: string; status?: 'deactivated' }[], number][] = [
      ['Za', Array.from({ length: 3 }, () => ({ last: 'Zander', first: 'Zara' })), 3],
      ['a½', five({ last: 'A½x' }), 0],
      ['zq', five({ last: `Zq${'x'.repeat(2100)}` }), 0],
      ['zq', five({ last: `Zq${'ⅷ'.repeat(600)}` }), 0],
      [
        'Za',
        [
          ...five({ last: 'Zander', status: 'deactivated' }),
          ...five({ last: 'Zander' }).slice(0, 3),
        ],
        3,
      ],
      ['za', five({ last: 'Zander' }).slice(0, 4), 4],
      ['zz za', five({ last: 'Zander' }), 0],
    ];
    for (const [query, rows, matches] of cases) {
      const branchId = await branchOf(rows);
      expect([query, await total(branchId, query)]).toEqual([query, [matches, undefined]]);
    }
  } finally {
    await store.close();
  }
});

test('in a database whose locale lowers I to ı, a name key proves nothing for a word with an i', async () => {
  const name = `roster_test_tr_${process.pid}_${Date.now()}`;
  await admin(
    `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8' LOCALE_PROVIDER icu ICU_LOCALE 'tr'`,
  );
  drops.push(async () => {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  const url = new URL(TEST_DATABASE!);
  url.pathname = `/${name}`;
  const store = await openStore({
    dataDir: dataDir(),
    target: databaseTarget(url.toString(), '/unused'),
    searchSortsUpTo: 2,
  });
  try {
    await store.bootstrap();
    const tenant = (await store.tenants.byHost('*'))!;
    const main = (await store.branches.byName(tenant.id, 'main'))!;
    for (let i = 0; i < 5; i++)
      await store.users.insert(
        userRow({
          tenant_id: tenant.id,
          branch_id: main.id,
          external_id: `iv${i}`,
          last_name: 'Ivanov',
        }),
        TEST_AUDIT,
      );
    // Ivanov's vector holds ıvanov there, so `iv` matches none of them; their key is ivanov.
    const page = await store.users.list({
      branchId: main.id,
      statuses: ['activated'],
      query: 'iv',
      sort: [{ key: 'lastName', dir: 'ASC' }],
      limit: 1,
      offset: 0,
      countUpTo: 4,
    });
    expect([page.total, page.totalExact, page.rows]).toEqual([0, undefined, []]);
  } finally {
    await store.close();
  }
});

test('a database that stops answering mid-statement: the statement fails after the read timeout, the next reconnects', async () => {
  const db = await freshDatabase();
  drops.push(db.drop);
  const relay = await pgRelay(db.url);
  const store = await openStore({
    dataDir: dataDir(),
    target: databaseTarget(relay.url, '/unused'),
    statementTimeoutMs: 200,
  });
  try {
    await store.ping();
    relay.state.holding = true;
    const err = (await store.ping().catch((e: Error) => e)) as Error;
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(err.message).toBe('database unavailable: Query read timeout: no answer within 2200 ms');
    relay.state.holding = false;
    await store.ping();
  } finally {
    await store.close();
    relay.close();
  }
});

test("a replica's start-up sweep leaves the media rows of other replicas' files alone", async () => {
  const a = await startServer();
  try {
    const { body, contentType } = uploadBody(readFileSync((await fixtures()).png), 'a.png');
    const medium = await a.req('POST', '/api/media', {
      headers: { 'content-type': contentType },
      body,
    });
    expect(medium.status).toBe(200);
    // Its own data dir holds no media files.
    const b = await replicaOf(a);
    try {
      await b.app.listen(0);
      expect(b.logs.filter((l) => l.startsWith('sweep'))).toEqual([]);
      expect((await a.req('GET', `/api/media/${medium.json.id}`)).status).toBe(200);
      expect(await sql(a.store, 'SELECT id FROM media')).toHaveLength(1);
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
  }
});

test('the rate limit is one bucket per token across replicas', async () => {
  const a = await startServer({ rateLimit: 3 });
  const b = await replicaOf(a, { rateLimit: 3 });
  try {
    const atB = requester((await b.app.listen(0)).url, a.adminToken);
    const statuses = [];
    for (const req of [a.req, atB, a.req, atB])
      statuses.push((await req('GET', '/api/users')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  } finally {
    await b.close();
    await a.close();
  }
});

describe("the tests' reuse of a database (helpers/database-state.ts)", () => {
  /** A copy of the migrated template, a session on it, and its state as the template left it. */
  async function copy() {
    const db = await freshDatabase();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    drops.push(async () => {
      await client.end();
      await db.drop();
    });
    return { db, client, template: await captureState(client) };
  }

  test('puts back what a store wrote: rows, the credentials epoch, sequences', async () => {
    const { db, client, template } = await copy();
    const store = await open(db.url);
    const { adminToken } = (await store.bootstrap())!;
    const tenant = (await store.tenants.byHost('*'))!;
    const branch = (await store.branches.byName(tenant.id, 'main'))!;
    await store.users.insert(
      userRow({ tenant_id: tenant.id, branch_id: branch.id, external_id: 'E-1' }),
      TEST_AUDIT,
    );
    expect(await store.tokens.revoke((await store.tokens.list())[0]!.id, TEST_AUDIT)).toBe(true);
    await store.close();
    expect(adminToken).toBeTruthy();
    expect(await captureState(client)).not.toEqual(template);

    expect(await restoreState(client, template)).toBe(true);
    expect(await captureState(client)).toEqual(template);
    // …so the next test's store starts where a fresh copy's would.
    const again = await open(db.url);
    expect((await again.bootstrap())!.adminToken).toBeTruthy();
    expect((await again.tenants.byHost('*'))!.id).toBe(1);
    await again.close();
  });

  test('leaves a database whose schema a test changed as it is, for the caller to drop', async () => {
    const { client, template } = await copy();
    await client.query('ALTER TABLE users ADD COLUMN stray integer');
    await client.query("INSERT INTO meta (key, value) VALUES ('k', 'v')");
    expect(await restoreState(client, template)).toBe(false);
    expect((await client.query('SELECT value FROM meta')).rows).toEqual([{ value: 'v' }]);
  });
});
