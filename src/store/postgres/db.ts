/**
 * The PostgreSQL connection: a pool with timeouts (a slow or vanished database is a 503, never
 * a hung request), errors translated to the store's, transactions, the checks `serve` makes
 * before it uses a database, and migrations under an advisory lock.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import {
  type MigrationLog,
  migrationDone,
  migrationFailed,
  migrationStarting,
  upgradeLog,
} from '../common/migration.js';
import { redactUrl } from '../common/redact.js';
import {
  CommitOutcomeUnknownError,
  StoreUnavailableError,
  UniqueViolationError,
} from '../errors.js';
import { migrationQuery } from './migration-query.js';
import { MIGRATION_NAMES, MIGRATIONS } from './schema.js';

export type Pool = pg.Pool;
export type Client = pg.PoolClient;
/** A pool or a client inside a transaction: what a statement runs on. */
export type Queryable = Pick<pg.Pool, 'query'>;

export interface PoolOptions {
  poolSize?: number;
  statementTimeoutMs?: number;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** Migrations of every Roster on one database queue behind this lock (any fixed number). */
const MIGRATION_LOCK = 0x526f7374; // "Rost"

// bigint and numeric (count(*), sum()) as numbers: every count, id and size here is far below
// 2^53, and the service works with numbers as it does on SQLite.
const toNumber = (value: string) => Number(value);
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return toNumber;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** Index and constraint names as the field they keep unique. */
const CONSTRAINT_FIELDS: Record<string, UniqueViolationError['field']> = {
  users_external_id: 'externalId',
  users_email: 'email',
  users_user_name: 'userName',
  // The login name (userName, else email): a userName that is another user's login.
  users_login: 'userName',
  tenants_host: 'host',
  branches_name: 'branch',
};

/** SQLSTATE classes and codes that mean "not now", not "never": retrying may succeed. */
const UNAVAILABLE = (code: string) =>
  code.startsWith('08') || // connection exception
  code === '57014' || // query_canceled: the statement timeout
  code === '57P01' || // admin_shutdown
  code === '57P02' || // crash_shutdown
  code === '57P03' || // cannot_connect_now (starting up)
  code === '53300' || // too_many_connections
  code === '40001' || // serialization_failure
  code === '40P01' || // deadlock_detected
  code === '25006'; // read_only_sql_transaction: a standby, or a primary demoted in a failover

const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** The store's error for a `pg` error: unique violations and unavailability; else unchanged. */
export function translate(err: unknown): unknown {
  // Translated already (a statement's error, rethrown by its transaction): as it is.
  if (err instanceof StoreUnavailableError || err instanceof UniqueViolationError) return err;
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code === '23505') {
    const field = e.constraint && CONSTRAINT_FIELDS[e.constraint];
    if (field) return new UniqueViolationError(field);
  }
  if (
    (e?.code && (UNAVAILABLE(e.code) || NETWORK.has(e.code))) ||
    // pg's own words for a connection that is gone, or was lost before this statement.
    /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection is closed|not queryable/i.test(
      e?.message ?? '',
    )
  ) {
    return new StoreUnavailableError(`database unavailable: ${e.message ?? e.code}`, {
      cause: err,
    });
  }
  return err;
}

export function createPool(url: string, opts: PoolOptions, onError: (err: Error) => void): Pool {
  const statementTimeout = opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: statementTimeout,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'roster',
    types: TYPES,
  });
  // An idle connection's server going away is reported here; without a listener it would end
  // the process. The pool drops that connection and opens another on the next request.
  pool.on('error', onError);
  pool.on('connect', (client) => {
    // The pool listens to a connection only while it is idle. One checked out (a statement, a
    // transaction, the sweep lock) whose server goes away — a crash, a failover — emits 'error'
    // with nobody listening, which ends the process. So each has a listener of its own for its
    // whole life: the statement in flight, or the next one, fails with the error instead (a
    // 503), and the pool drops the connection when it is released (it is no longer queryable).
    client.on('error', onError);
    // Client-side too: a server that stops answering mid-statement must not hang a request.
    readTimeouts.set(client, statementTimeout + 2_000);
  });
  return pool;
}

/**
 * How long each connection waits for a statement's answer (see send). Not pg's query_timeout:
 * its timer per statement, like its promise API, kept every answer's rows alive through the
 * next young-generation collections, which then took 15–25 ms instead of 3. At 1M users that
 * was a list's p99 (16 ms against a p50 of 2; bench/README.md, "A million users"). Upstream,
 * brianc/node-postgres#3497 reports results the timeout's callback keeps from the collector.
 */
const readTimeouts = new WeakMap<object, number>();

/**
 * One statement on one connection, through pg's callback API (see readTimeouts). With no answer
 * within the connection's read timeout it fails as pg's own timeout did, and the connection is
 * ended: with a statement in flight pg destroys its socket, so nothing waits on it.
 */
function send<R extends pg.QueryResultRow>(
  client: Client,
  config: pg.QueryConfig,
): Promise<pg.QueryResult<R>> {
  const ms = readTimeouts.get(client);
  return new Promise((resolve, reject) => {
    const guard =
      ms === undefined
        ? undefined
        : setTimeout(() => {
            reject(new Error(`Query read timeout: no answer within ${ms} ms`));
            client.end().catch(() => {});
          }, ms);
    client.query<R>(config, (err, result) => {
      clearTimeout(guard);
      if (err) reject(err);
      else resolve(result);
    });
  });
}

/** A connection from the pool; failing to get one is always "unavailable", whatever the cause. */
export async function connect(pool: Pool): Promise<Client> {
  try {
    return await pool.connect();
  } catch (err) {
    const e = err as { message?: string; code?: string };
    throw new StoreUnavailableError(`database unavailable: ${e.message ?? e.code}`, { cause: err });
  }
}

/**
 * Statements run as named prepared statements (unless planned each time, below): PostgreSQL
 * parses and plans each once per connection, not per request. The names come from the text, so
 * the same text is one statement (the texts are this module's own, a bounded set).
 */
const names = new Map<string, string>();
const nameOf = (text: string) => {
  let name = names.get(text);
  if (!name) {
    name = `roster_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
};

/**
 * Runs one statement (on the pool, or on a transaction's client), with the store's errors.
 * `planEachTime`: unnamed, so PostgreSQL plans it with its values every time. For a statement
 * whose best plan depends on them: a search for a rare word wants the full-text index, for a
 * common one the order's index. A prepared statement goes over to a generic plan after five runs,
 * and a generic plan cannot see the words (at 1M users, `query=anna berlin` walked every user in
 * name order: 1.3 s instead of 0.13 s; bench/README.md, "A million users").
 */
export async function query<R extends pg.QueryResultRow>(
  db: Queryable,
  text: string,
  values: unknown[] = [],
  { planEachTime = false } = {},
): Promise<pg.QueryResult<R>> {
  const client = db instanceof pg.Pool ? await connect(db) : undefined;
  let broken: Error | undefined;
  try {
    return await send<R>(
      (client ?? db) as Client,
      planEachTime ? { text, values } : { name: nameOf(text), text, values },
    );
  } catch (err) {
    const translated = translate(err);
    if (translated instanceof StoreUnavailableError) broken = translated;
    throw translated;
  } finally {
    // A connection that failed that way is not handed out again.
    client?.release(broken);
  }
}

/** The statement each open transaction sends in one message with its COMMIT (`sendWithCommit`). */
const atCommit = new WeakMap<Client, string>();

/**
 * Has the transaction on `client` end with `text` (literal SQL, no parameters: it goes by the
 * simple protocol) sent in the same message as its COMMIT. For a statement that takes a lock
 * held until the commit: the lock is then held for the server's own work, not for a round trip
 * to serve and back and for serve's event loop in between (the event log's numbering lock).
 */
export function sendWithCommit(client: Client, text: string): void {
  if (atCommit.has(client)) throw new Error('a transaction sends one statement with its COMMIT');
  atCommit.set(client, text);
}

/**
 * Transactions that hold a lock to their COMMIT which others queue on (the event log's
 * numbering): they commit without waiting for the flush, then wait for it (DURABLE, below)
 * before `transaction` resolves. The lock is then held for the commit record's insert, not for
 * the disk's flush and a synchronous standby's answer, which their waits share (PostgreSQL
 * flushes every commit queued behind one in the same write). The caller still resolves only
 * once its commit is durable; what a committed-but-unflushed transaction shows other sessions
 * meanwhile is no more than a synchronous standby's wait already shows (its commit is visible
 * on the primary before the standby has it). Readers that must not hand on what a crash could take
 * back (the event log's followers) wait with `durable` themselves.
 */
const flushAfterUnlock = new WeakSet<Client>();

/** Has the transaction on `client` commit before its flush, and wait for the flush after (above). */
export function commitBeforeFlush(client: Client): void {
  flushAfterUnlock.add(client);
}

/**
 * A transaction with one WAL record of its own (a logical-decoding message, which any role may
 * write and no table keeps) committed synchronously: its commit returns once the WAL up to it is
 * flushed (and with synchronous replication, on the standby), so once everything committed
 * before it is durable too. Without a record of its own a transaction's commit does not wait.
 */
const DURABLE = "BEGIN;\nSELECT pg_logical_emit_message(true, 'roster', 'durable');\nCOMMIT";

/** Resolves once every transaction committed before this call is durable (see DURABLE). */
export async function durable(pool: Pool): Promise<void> {
  const client = await connect(pool);
  let broken: Error | undefined;
  try {
    await send(client, { text: DURABLE });
  } catch (err) {
    await send(client, { text: 'ROLLBACK' }).catch((rollbackErr: Error) => {
      broken = rollbackErr;
    });
    const translated = translate(err);
    if (translated instanceof StoreUnavailableError) broken ??= translated;
    throw translated;
  } finally {
    client.release(broken);
  }
}

/** Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. */
export async function transaction<T>(pool: Pool, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect(pool);
  let broken: Error | undefined;
  let committing = false;
  try {
    await send(client, { text: 'BEGIN' });
    const result = await fn(client);
    committing = true;
    const last = atCommit.get(client);
    const early = flushAfterUnlock.has(client);
    // An error in `last` aborts the transaction and PostgreSQL skips the COMMIT after it: an
    // ERROR, below, as a refused COMMIT is. With `early` the wait for the flush follows in the
    // same message (no round trip more); it fails only with its connection (serve checks at
    // start that its role may write DURABLE's record: checkDurableWait), so an ERROR still
    // means "not made", and a connection lost after the message went is an unknown outcome.
    await send(client, {
      text: [early && 'SET LOCAL synchronous_commit TO off', last, 'COMMIT', early && DURABLE]
        .filter(Boolean)
        .join(';\n'),
    });
    return result;
  } catch (err) {
    await send(client, { text: 'ROLLBACK' }).catch((rollbackErr: Error) => {
      broken = rollbackErr; // the connection is unusable: the pool must not hand it out again
    });
    const translated = translate(err);
    // Nor one that failed that way, as in query(): one on a server turned read-only (25006)
    // would fail every write it is given; a new one goes where the database now is.
    if (translated instanceof StoreUnavailableError) broken ??= translated;
    // A COMMIT the server refused with an ERROR (a serialization failure, a deferred
    // constraint) was rolled back, and one on a connection lost before it was never sent
    // (pg: 'not queryable'). One whose connection went after it was sent may have been made.
    const e = err as { severity?: string; message?: string };
    const notMade = e?.severity === 'ERROR' || /not queryable/.test(e?.message ?? '');
    if (committing && translated instanceof StoreUnavailableError && !notMade) {
      throw new CommitOutcomeUnknownError(
        `commit outcome unknown: ${translated.message.replace(/^database unavailable: /, '')}`,
        { cause: err },
      );
    }
    throw translated;
  } finally {
    atCommit.delete(client);
    flushAfterUnlock.delete(client);
    client.release(broken);
  }
}

/** One line for `serve` to print when it cannot use the database, or undefined. */
export function describeConnectError(err: unknown, url: string): string {
  const e = err as { code?: string; message?: string };
  const where = redactUrl(url);
  if (e?.code === '28P01' || e?.code === '28000') {
    return `cannot log in to the database ${where}: ${e.message}; check the user and password in the URL`;
  }
  if (e?.code === '3D000') {
    return `the database in ${where} does not exist: ${e.message}; create it (createdb) or fix the URL`;
  }
  return `cannot reach the database ${where}: ${e?.message ?? String(err)}; check that PostgreSQL runs there and the URL is right`;
}

/** Raised by `prepareDatabase` with the one line `serve` prints. */
export class DatabaseSetupError extends Error {
  override name = 'DatabaseSetupError';
}

/**
 * Checks that the database can hold Roster's data and brings its schema up to date: UTF-8
 * with a real character-type locale (with `C` the search's regex drops Cyrillic), the
 * `unaccent` extension, and a schema no newer than this binary. Migrations run one at a time
 * across every replica (advisory lock), each in its own transaction.
 */
export async function prepareDatabase(
  pool: Pool,
  url: string,
  onMigration?: MigrationLog,
): Promise<void> {
  let client: Client;
  try {
    client = await pool.connect();
  } catch (err) {
    throw new DatabaseSetupError(describeConnectError(err, url), { cause: err });
  }
  try {
    const { rows } = await client.query<{ encoding: string; ctype: string }>(
      `SELECT pg_encoding_to_char(encoding) AS encoding, datctype AS ctype
       FROM pg_database WHERE datname = current_database()`,
    );
    const { encoding, ctype } = rows[0]!;
    if (encoding !== 'UTF8') {
      throw new DatabaseSetupError(
        `the database ${redactUrl(url)} is encoded ${encoding}; Roster needs UTF8: create it with createdb -E UTF8 -T template0`,
      );
    }
    if (/^(C|POSIX)$/i.test(ctype)) {
      throw new DatabaseSetupError(
        `the database ${redactUrl(url)} has LC_CTYPE ${ctype}, which makes search ignore non-ASCII letters; create it with a UTF-8 locale, e.g. createdb -E UTF8 --locale=C.UTF-8 -T template0`,
      );
    }
    await checkDurableWait(client, url);
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migrate(client, url, onMigration);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } catch (err) {
    if (err instanceof DatabaseSetupError) throw err;
    throw new DatabaseSetupError(describeConnectError(err, url), { cause: err });
  } finally {
    client.release();
  }
}

/**
 * Event-writing transactions wait for their flush with DURABLE, sent with their COMMIT: should
 * the role not be allowed its record, every such write would be committed and then reported
 * failed. PUBLIC may run pg_logical_emit_message unless an administrator revoked it.
 */
async function checkDurableWait(client: Client, url: string) {
  try {
    await client.query(DURABLE);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    const e = err as { code?: string; message?: string };
    if (e?.code !== '42501') throw err;
    throw new DatabaseSetupError(
      `the role in ${redactUrl(url)} may not run pg_logical_emit_message (${e.message}), which Roster's writes wait for their flush with; GRANT EXECUTE ON FUNCTION pg_logical_emit_message(boolean, text, text) TO that role`,
    );
  }
}

async function migrate(client: Client, url: string, log?: MigrationLog) {
  await client.query(
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const { rows } = await client.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM schema_migrations',
  );
  const current = rows[0]?.version ?? 0;
  if (current > MIGRATIONS.length) {
    throw new DatabaseSetupError(
      `the schema of ${redactUrl(url)} (version ${current}) is newer than this roster (${MIGRATIONS.length}): upgrade roster`,
    );
  }
  const tell = upgradeLog(current, log);
  for (let v = current; v < MIGRATIONS.length; v++) {
    const started = performance.now();
    tell(migrationStarting(v + 1, MIGRATIONS.length, MIGRATION_NAMES[v]!));
    await client.query('BEGIN');
    try {
      // A migration may build an index over every user (1M: longer than a request may take);
      // the timeouts are for requests: the server's is off for this transaction only, the
      // client's a day for its statements (migration-query.ts).
      await client.query('SET LOCAL statement_timeout = 0');
      const step = MIGRATIONS[v]!;
      if (typeof step === 'string') await migrationQuery(client, step);
      else await step(client);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      const e = err as { message?: string; code?: string };
      if (/unaccent/.test(e.message ?? '')) {
        throw new DatabaseSetupError(
          e.code === '42501'
            ? `cannot create the unaccent extension in ${redactUrl(url)} (${e.message}): have the database owner or a superuser run CREATE EXTENSION unaccent there once`
            : `the database ${redactUrl(url)} lacks the unaccent extension (${e.message}): install PostgreSQL's contrib package (Debian: postgresql-contrib) on the database server`,
        );
      }
      // The ROLLBACK answered, so the database is there: what failed is this migration.
      const reason = `${e.message ?? String(err)}${e.code ? ` (${e.code})` : ''}`;
      throw new DatabaseSetupError(
        migrationFailed(v + 1, MIGRATIONS.length, redactUrl(url), reason),
        { cause: err },
      );
    }
    tell(migrationDone(v + 1, MIGRATIONS.length, performance.now() - started));
  }
}
