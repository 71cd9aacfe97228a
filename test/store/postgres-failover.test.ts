/**
 * What a request meets while PostgreSQL switches primaries, each kind of failure produced for
 * real on the test database: a read-only server (a standby, a demoted primary: 25006), a session
 * terminated mid-statement (57P01, as a shutdown or a failover ends it), a connection reset
 * (ECONNRESET), and a commit sent whose answer never came (its outcome unknown). Each is a 503 with Retry-After (or the store's StoreUnavailableError), the
 * connection it happened on is not handed out again, and the next request works. Runs in the
 * PostgreSQL project only; the database server's own crash is test/e2e/postgres-crash.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, test } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import { createApp } from '../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../src/server/config.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { query } from '../../src/store/postgres/db.js';
import { postgresHandle } from '../../src/store/postgres/handle.js';
import { freshDatabase, TEST_DATABASE } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { pgRelay } from '../helpers/pg-relay.js';
import { requester, startServer, type TestServer, V3 } from '../helpers/server.js';

const dirs: string[] = [];
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs one statement as the test's administrative user, on `database` (default: the URL's). */
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

const nameOf = (s: TestServer) => new URL(s.database!).pathname.slice(1);

/** Ends the server's sessions (its pool says application_name roster) and waits until it knows. */
async function endSessions(s: TestServer, where = 'true') {
  await admin(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE datname = '${nameOf(s)}' AND application_name = 'roster' AND ${where}`,
  );
  if (where === 'true') await eventually(() => postgresHandle(s.store).totalCount === 0);
}

const create = (s: TestServer, email: string) =>
  s.req('POST', '/api/users', {
    headers: { 'content-type': V3, accept: V3 },
    body: JSON.stringify({ email, sendMail: false }),
  });

const expectUnavailable = (r: Awaited<ReturnType<typeof create>>) => {
  expect(r.status).toBe(503);
  expect(r.headers['retry-after']).toBe('2');
  expect(r.json).toMatchObject({ identifier: 50300, type: 'ServiceUnavailableException' });
};

test('a read-only database (a standby, a demoted primary: 25006): writes 503 with Retry-After, reads answer, /readyz unready until it takes writes again', async () => {
  const s = await startServer();
  const name = nameOf(s);
  try {
    expect((await create(s, 'before@example.com')).status).toBe(201);
    await admin(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    await endSessions(s);

    expectUnavailable(await create(s, 'refused@example.com'));
    expect(s.logs.join('\n')).toContain('cannot execute INSERT in a read-only transaction');
    expect((await s.req('GET', '/api/users')).status).toBe(200);
    const ready = await s.req('GET', '/readyz', { token: null });
    expect(ready.status).toBe(503);
    expect(ready.json).toEqual({ status: 'database unavailable' });

    // Promoted again (or haproxy moved on): its sessions end, as a demotion's restart ends them.
    await admin(`ALTER DATABASE ${name} RESET default_transaction_read_only`);
    await endSessions(s);
    expect((await create(s, 'after@example.com')).status).toBe(201);
    expect((await s.req('GET', '/readyz', { token: null })).status).toBe(200);
  } finally {
    await admin(`ALTER DATABASE ${name} RESET default_transaction_read_only`);
    await s.close();
  }
});

test('the connection a write met a read-only server on is dropped, not handed out again: the next connect may reach the new primary', async () => {
  const s = await startServer();
  const name = nameOf(s);
  try {
    await admin(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    await endSessions(s);
    // The pool drops a connection released with an error (pg-pool's 'release' event says so at
    // once; its 'remove' comes after the connection has ended).
    const dropped: unknown[] = [];
    const count = (err: unknown) => err && dropped.push(err);
    postgresHandle(s.store).on('release', count);
    expectUnavailable(await create(s, 'refused@example.com'));
    postgresHandle(s.store).off('release', count);
    expect(dropped).toHaveLength(1);
    expect(String(dropped[0])).toContain('read-only transaction');
  } finally {
    await admin(`ALTER DATABASE ${name} RESET default_transaction_read_only`);
    await s.close();
  }
});

test('a session terminated mid-statement (57P01) answers 503 with Retry-After; the next write gets a new connection', async () => {
  const s = await startServer();
  const url = new URL(TEST_DATABASE!);
  url.pathname = `/${nameOf(s)}`;
  const locker = new pg.Client({ connectionString: url.toString() });
  await locker.connect();
  try {
    // A write held behind a lock, so its statement is in flight when its session ends.
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE users IN SHARE MODE');
    const stuck = create(s, 'stuck@example.com');
    await eventually(
      async () =>
        (
          await locker.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted',
          )
        ).rows[0]!.n > 0,
    );
    await endSessions(s, "wait_event_type = 'Lock'");
    expectUnavailable(await stuck);
    expect(s.logs.join('\n')).toContain('terminating connection due to administrator command');
    await locker.query('ROLLBACK');
    expect((await create(s, 'after@example.com')).status).toBe(201);
  } finally {
    await locker.end();
    await s.close();
  }
});

test('a connection reset mid-statement (ECONNRESET) is the store being unavailable; the next statement reconnects', async () => {
  const db = await freshDatabase();
  drops.push(db.drop);
  const relay = await pgRelay(db.url);
  const dataDir = mkdtempSync(join(tmpdir(), 'roster-pg-'));
  dirs.push(dataDir);
  const store = await openStore({ dataDir, target: databaseTarget(relay.url, '/unused') });
  try {
    await store.ping();
    const sleeping = query(postgresHandle(store), 'SELECT pg_sleep(3)').catch((e: Error) => e);
    const name = new URL(db.url).pathname.slice(1);
    await eventually(
      async () =>
        (
          await admin(
            `SELECT 1 FROM pg_stat_activity WHERE datname = '${name}' AND query LIKE 'SELECT pg_sleep%'`,
          )
        ).length > 0,
    );
    relay.reset();
    const err = (await sleeping) as Error;
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(err.message).toBe('database unavailable: read ECONNRESET');
    await store.ping();
  } finally {
    await store.close();
    relay.close();
  }
});

/** An app whose store reaches the database through a relay (test/helpers/pg-relay.ts). */
async function serverThroughRelay() {
  const db = await freshDatabase();
  drops.push(db.drop);
  const relay = await pgRelay(db.url);
  const dataDir = mkdtempSync(join(tmpdir(), 'roster-pg-'));
  dirs.push(dataDir);
  const store = await openStore({ dataDir, target: databaseTarget(relay.url, '/unused') });
  const { adminToken } = (await store.bootstrap())!;
  const logs: string[] = [];
  const app = await createApp({
    store,
    config: { dataDir, vendor: 'service', maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES },
    log: (l) => logs.push(l),
  });
  const { url } = await app.listen(0);
  return {
    url,
    adminToken,
    relay,
    logs,
    req: requester(url, adminToken),
    count: () =>
      postgresHandle(store).query<{ n: number }>(
        "SELECT count(*)::int AS n FROM users WHERE status <> 'deleted'",
      ),
    emails: async (email: string) =>
      (await postgresHandle(store).query('SELECT id FROM users WHERE email = $1', [email])).rows,
    async close() {
      await app.close(1000);
      await store.close();
      relay.close();
    },
  };
}

test('a write whose commit was sent but never answered (the connection reset, via a relay) is a 503 saying its outcome is unknown', async () => {
  const s = await serverThroughRelay();
  const invite = () =>
    s.req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ email: 'maybe@example.com', sendMail: false }),
    });
  try {
    s.relay.state.loseAnswerTo = 'COMMIT';
    const r = await invite();
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('2');
    expect(r.headers['roster-outcome']).toBe('unknown');
    expect(r.json).toMatchObject({ identifier: 50300, type: 'ServiceUnavailableException' });
    expect(r.json.message).toMatch(
      /^the connection to the database was lost while the change was being committed: it may have been made/,
    );
    expect(s.logs.join('\n')).toContain('commit outcome unknown');
    // It was: the database got the COMMIT. Repeated blindly, the create meets itself.
    expect(await s.emails('maybe@example.com')).toHaveLength(1);
    expect((await invite()).status).toBe(409);
  } finally {
    await s.close();
  }
});

test("the client, told a create's outcome is unknown, finds the user the service made (by externalId, email or userName) or creates it once: never a 409, never two", async () => {
  const s = await serverThroughRelay();
  const client = createApiClient({ baseUrl: `${s.url}/api`, token: s.adminToken });
  try {
    // Made: the COMMIT arrived, its answer did not.
    s.relay.state.loseAnswerTo = 'COMMIT';
    const made = await client.createUser({ email: 'made@example.com', sendMail: false });
    expect(s.relay.state.loseAnswerTo).toBeUndefined(); // it did lose one
    expect(made.user.email?.value).toBe('made@example.com');
    expect(await s.emails('made@example.com')).toEqual([{ id: made.user.id }]);
    // Not made: the COMMIT itself was lost, and the session with it (rolled back).
    s.relay.state.loseMessage = 'COMMIT';
    const once = await client.createUser({ email: 'lost@example.com', sendMail: false });
    expect(s.relay.state.loseMessage).toBeUndefined();
    expect(await s.emails('lost@example.com')).toEqual([{ id: once.user.id }]);
    // By externalId when the body has one (an email may be another user's, or absent), and
    // by userName when it has neither.
    s.relay.state.loseAnswerTo = 'COMMIT';
    const byKey = await client.createUser({ externalId: 'E-1', email: 'e1@example.com' });
    expect(byKey.user.externalId).toBe('E-1');
    s.relay.state.loseAnswerTo = 'COMMIT';
    const byName = await client.createUser({ userName: 'Only.Name', sendMail: false });
    expect(byName.user.userName?.value).toBe('Only.Name');
    expect(s.relay.state.loseAnswerTo).toBeUndefined();
    const { rows } = await s.count();
    expect(rows).toEqual([{ n: 4 }]);
  } finally {
    await client.close();
    await s.close();
  }
});
