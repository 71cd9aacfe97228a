/**
 * The database server itself crashing under a running service, on a throw-away PostgreSQL cluster
 * of this file's own (test/helpers/pg-cluster.ts; never the shared one): one backend SIGKILLed
 * (PostgreSQL then ends every session and restarts itself), then the postmaster (a crash, an OOM
 * kill of the server) with writes in flight, a transaction checked out between its write and
 * its COMMIT, and the sweep lock held. `roster serve` (spawned: the process surviving is the
 * point) and a store in this process both live on, answer 503 with Retry-After while it is
 * down or refusing connections (57P03), and take writes again once it is back, with no restart.
 * Needs PostgreSQL's binaries, not ROSTER_TEST_DATABASE: its own vitest project, run once.
 */
import pg from 'pg';
import { afterAll, expect, test } from 'vitest';
import { EVENT_COLUMNS } from '../../src/store/common/event-rows.js';
import { CommitOutcomeUnknownError, StoreUnavailableError } from '../../src/store/errors.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import {
  createPool,
  DatabaseSetupError,
  prepareDatabase,
  query,
  transaction,
} from '../../src/store/postgres/db.js';
import { postgresHandle } from '../../src/store/postgres/handle.js';
import { sql } from '../helpers/database.js';
import { profileToken, spawnServe } from '../helpers/e2e.js';
import { engineAvailable } from '../helpers/engine.js';
import { eventually } from '../helpers/eventually.js';
import { createCluster, postgresBin } from '../helpers/pg-cluster.js';
import { scratch } from '../helpers/scratch.js';
import { requester, V3 } from '../helpers/server.js';

const bin = postgresBin();
const enabled = engineAvailable(
  'the PostgreSQL crash tests',
  bin !== undefined,
  'install PostgreSQL (apt-get install postgresql postgresql-contrib)',
);
const scope = scratch();
afterAll(scope.cleanup);

test.runIf(enabled)(
  'a backend, then the postmaster SIGKILLed under load: serve lives on, answers 503 with Retry-After, and takes writes again once PostgreSQL is back, without a restart',
  async () => {
    const cluster = await createCluster(bin!, scope.temp('roster-pg-cluster-'));
    scope.defer(cluster.destroy);

    const config = scope.temp('roster-crash-config-');
    const served = await spawnServe(scope.temp('roster-crash-data-'), config, [
      '--database',
      cluster.url,
    ]);
    scope.defer(async () => {
      served.child.kill('SIGKILL');
      await served.child;
    });
    const req = requester(served.url, profileToken(config)!);
    const create = (email: string) =>
      req('POST', '/api/users', {
        headers: { 'content-type': V3, accept: V3 },
        body: JSON.stringify({ email, sendMail: false }),
      });
    expect((await create('before@example.com')).status).toBe(201);
    const expectUnavailable = (r: Awaited<ReturnType<typeof create>>) => {
      expect(r.status).toBe(503);
      expect(r.headers['retry-after']).toBe('2');
      expect(r.json).toMatchObject({ identifier: 50300, type: 'ServiceUnavailableException' });
    };

    /** Writes to users wait behind this session's lock until it ends; `waiting` counts them. */
    const lockUsers = async () => {
      const locker = new pg.Client({ connectionString: cluster.url });
      locker.on('error', () => {}); // its session dies in the crash too
      await locker.connect();
      scope.defer(() => locker.end().catch(() => {}));
      const { rows } = await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE users IN SHARE MODE');
      const waiting = async () =>
        (
          await locker.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted',
          )
        ).rows[0]!.n;
      return { pid: rows[0]!.pid, waiting };
    };

    // One backend killed (an OOM kill): PostgreSQL ends every other session (since 14 with a
    // 57P02 warning, then the connection closes) and restarts itself. A write in flight on one
    // of them is a 503 (logged once, as what it is); the next one succeeds.
    const victim = await lockUsers();
    const crashed = create('crashed@example.com');
    await eventually(async () => (await victim.waiting()) > 0);
    await cluster.killBackend(victim.pid);
    expectUnavailable(await crashed);
    expect(served.logs.join('\n')).toMatch(
      /error: POST \/api\/users \[\S+\]: database unavailable: Connection terminated unexpectedly$/m,
    );
    expect((await create('recovered@example.com')).status).toBe(201);

    // A replica in this process too, whose unhandled 'error' events would be thrown here.
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    scope.defer(() => process.off('uncaughtException', onUncaught));
    const dataDir = scope.temp('roster-crash-store-');
    const store = await openStore({ dataDir, target: databaseTarget(cluster.url, dataDir) });
    scope.defer(() => store.close());
    // The sweep lock, on a connection held outside the pool's idle list…
    const sweepLock = await store.trySweepLock();
    expect(sweepLock).toBeDefined();
    let releaseSweep = sweepLock!;
    scope.defer(() => releaseSweep());
    // …and a transaction checked out between its write and its COMMIT.
    let resume!: () => void;
    const paused = new Promise<void>((r) => {
      resume = r;
    });
    // Whatever fails, nothing is left waiting on the test when the store closes.
    let running = true;
    scope.defer(() => {
      running = false;
      resume();
    });
    const held = transaction(postgresHandle(store), async (client) => {
      await query(
        client,
        "INSERT INTO tenants (host, created_at) VALUES ('never.example.com', '')",
      );
      await paused; // the crash comes here: its COMMIT is never sent
    }).then(
      () => undefined,
      (err: unknown) => err,
    );

    // A steady load of writes from two writers until the end…
    const answers: { status: number; retryAfter?: string; identifier?: unknown }[] = [];
    let n = 0;
    const writer = async () => {
      while (running) {
        const r = await create(`load-${n++}@example.com`).catch((err: Error) => ({
          status: 0,
          headers: {} as Record<string, string>,
          json: err.message,
        }));
        answers.push({
          status: r.status,
          retryAfter: r.headers['retry-after'],
          identifier: (r.json as { identifier?: unknown } | undefined)?.identifier,
        });
      }
    };
    const load = Promise.all([writer(), writer()]);
    await eventually(() => answers.some((a) => a.status === 201));

    // …and writes in flight in serve at the moment of the crash: held behind a lock until then
    // (the one sent here, and both writers' next ones).
    const { waiting } = await lockUsers();
    const stuck = create('in-flight@example.com');
    await eventually(async () => (await waiting()) >= 3);

    await cluster.killPostmaster();
    resume();

    expectUnavailable(await stuck);
    // Not made, and known not to be: the connection was gone before the COMMIT.
    const heldErr = await held;
    expect(heldErr).toBeInstanceOf(StoreUnavailableError);
    expect(heldErr).not.toBeInstanceOf(CommitOutcomeUnknownError);
    await releaseSweep();
    releaseSweep = async () => {};
    // Down: nothing listens on the port.
    expectUnavailable(await create('refused@example.com'));
    expect((await req('GET', '/readyz', { token: null })).status).toBe(503);
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);

    // Back, but refusing connections while it waits to be a replica (57P03).
    await cluster.start({ standby: true });
    expectUnavailable(await create('starting@example.com'));
    const starting = await req('GET', '/readyz', { token: null });
    expect(starting.status).toBe(503);
    expect(starting.json).toEqual({ status: 'database unavailable' });
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await cluster.stop();

    // Back as the primary: the first write succeeds, on the pools of before.
    await cluster.start();
    expect((await create('after@example.com')).status).toBe(201);
    expect((await req('GET', '/readyz', { token: null })).status).toBe(200);
    await store.ping();
    const since = answers.length;
    await eventually(() => answers.slice(since).some((a) => a.status === 201));
    running = false;
    await load;

    expect(served.child.exitCode).toBeNull();
    expect(uncaught).toEqual([]);
    // Every write the crash failed was a 503 with Retry-After and the envelope: no 500s.
    const failed = answers.filter((a) => a.status !== 201);
    expect(failed.length).toBeGreaterThan(0);
    for (const a of failed) expect(a).toEqual({ status: 503, retryAfter: '2', identifier: 50300 });
    // What the crash cut short did not happen; what came after did.
    expect(await sql(store, "SELECT host FROM tenants WHERE host = 'never.example.com'")).toEqual(
      [],
    );
    const emails = await sql<{ email: string }>(
      store,
      `SELECT email FROM users WHERE email IN
         ('crashed@example.com', 'recovered@example.com', 'in-flight@example.com', 'after@example.com')
       ORDER BY email`,
    );
    expect(emails.map((e) => e.email)).toEqual(['after@example.com', 'recovered@example.com']);

    // Every write answered is on disk, with its event: the postmaster SIGKILLed the moment the
    // last answer is in, before PostgreSQL's WAL writer wakes (every 200 ms). An event-writing
    // commit does not wait for its flush under the numbering lock (db.ts commitBeforeFlush);
    // without its wait afterwards the last ones answered here were lost, their events too.
    const acked = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create(`acked-${i}@example.com`)),
    );
    await cluster.killPostmaster();
    expect(acked.map((r) => r.status)).toEqual(acked.map(() => 201));
    await cluster.start();
    const kept = await sql<{ users: number; events: number }>(
      store,
      `SELECT count(DISTINCT u.id)::int AS users, count(e.id)::int AS events
         FROM users u LEFT JOIN events e ON e.target_id = u.id::text AND e.type = 'user.created'
        WHERE u.email LIKE 'acked-%'`,
    );
    expect(kept).toEqual([{ users: 20, events: 20 }]);

    // And a follower hands on only what is on disk: an event committed without its flush (as
    // every event-writing commit is, above) is listed once the follower's own wait has flushed
    // it, so it is still there after a crash that comes the moment the page is answered.
    const raw = new pg.Client({ connectionString: cluster.url });
    await raw.connect();
    const others = EVENT_COLUMNS.filter((c) => c !== 'id').join(', ');
    await raw.query(`BEGIN; SET LOCAL synchronous_commit TO off;
      INSERT INTO events (id, ${others})
        SELECT 'evt_not_yet_flushed', ${others} FROM events ORDER BY sequence DESC LIMIT 1;
      COMMIT`);
    await raw.end();
    const [unflushed] = await sql<{ branch_id: number; sequence: number }>(
      store,
      "SELECT branch_id, sequence FROM events WHERE id = 'evt_not_yet_flushed'",
    );
    const { branch_id: branchId, sequence } = unflushed!;
    const page = await store.events.list({ branchId, afterSequence: sequence - 1, limit: 5 });
    await cluster.killPostmaster();
    expect(page.rows.map((e) => e.id)).toEqual(['evt_not_yet_flushed']);
    await cluster.start();
    expect(await sql(store, "SELECT id FROM events WHERE id = 'evt_not_yet_flushed'")).toEqual([
      { id: 'evt_not_yet_flushed' },
    ]);

    // A role an administrator has refused that record's function: serve refuses to start (its
    // event writes would be committed, then reported failed), and says what to grant.
    await sql(
      store,
      'REVOKE EXECUTE ON FUNCTION pg_logical_emit_message(boolean, text, text) FROM PUBLIC',
    );
    await sql(store, "CREATE ROLE plain LOGIN PASSWORD 'plain-pw'");
    const plainUrl = Object.assign(new URL(cluster.url), {
      username: 'plain',
      password: 'plain-pw',
    });
    const plainPool = createPool(plainUrl.href, {}, () => {});
    scope.defer(() => plainPool.end());
    const refused = await prepareDatabase(plainPool, plainUrl.href).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(DatabaseSetupError);
    expect((refused as Error).message).toMatch(
      /may not run pg_logical_emit_message .*; GRANT EXECUTE ON FUNCTION pg_logical_emit_message\(boolean, text, text\) TO that role$/,
    );
    expect((refused as Error).message).not.toContain('plain-pw');
  },
  30_000,
);
