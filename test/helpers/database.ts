/**
 * The store a test runs on, chosen by environment only: SQLite in the test's data dir by
 * default; with ROSTER_TEST_DATABASE (a PostgreSQL URL whose user may create databases), a
 * database of its own: for an in-process store one its worker used before and emptied, else a
 * fresh one, dropped afterwards. Tests that must look inside the store do it through `sql`,
 * which speaks to either backend.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseTarget, type OpenOptions, openStore } from '../../src/store/open.js';
import { postgresHandle } from '../../src/store/postgres/handle.js';
import { sqliteHandle } from '../../src/store/sqlite/handle.js';
import type { Store } from '../../src/store/store.js';
import { restoreState } from './database-state.js';

export const TEST_DATABASE = process.env.ROSTER_TEST_DATABASE || undefined;
/** `s3://` with ROSTER_S3_ENDPOINT and the AWS variables: media in a fresh bucket per store. */
export const TEST_BLOBS = process.env.ROSTER_TEST_BLOBS || undefined;

/** Which backend this run tests, for test names and backend-specific checks. */
export const BACKEND: 'sqlite' | 'postgres' = TEST_DATABASE ? 'postgres' : 'sqlite';

/** Creates a UTF-8 database copied from `template` on the server `admin` names. */
export async function createDatabase(
  admin: string,
  template: string,
  prefix = 'roster_test_',
): Promise<{ name: string; url: string }> {
  const name = `${prefix}${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    // PostgreSQL 15's default strategy (WAL_LOG) writes each page of the template through the
    // WAL: 0.39 s per database here against 0.16 s for FILE_COPY, which a test server (fsync
    // off) makes cheap. Every test file on PostgreSQL makes at least one.
    const { rows } = await client.query<{ v: string }>('SELECT current_setting($1) AS v', [
      'server_version_num',
    ]);
    const strategy = Number(rows[0]!.v) >= 150000 ? ' STRATEGY FILE_COPY' : '';
    await client.query(
      `CREATE DATABASE ${name} TEMPLATE ${template} ENCODING 'UTF8' LOCALE 'C.UTF-8'${strategy}`,
    );
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

export async function dropDatabase(admin: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * A database for one test file: its URL and how to drop it. It starts migrated, a copy of the
 * run's template (test/global-setup.ts), or empty with `{ migrated: false }`.
 */
export async function freshDatabase({ migrated = true } = {}): Promise<{
  url: string;
  drop(): Promise<void>;
}> {
  if (!TEST_DATABASE) throw new Error('ROSTER_TEST_DATABASE is not set');
  const template = (migrated && inject('pgTemplate')) || 'template0';
  const { name, url } = await createDatabase(TEST_DATABASE, template);
  return { url, drop: () => dropDatabase(TEST_DATABASE, name) };
}

/**
 * The `--database` value a test server should use: undefined on SQLite (the data dir), else a
 * fresh PostgreSQL database; `drop` removes it after the test.
 */
export async function testDatabase(): Promise<{ url?: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE) return { drop: async () => {} };
  return freshDatabase();
}

/** The `--blobs` value a test server should use: undefined (the data dir), or a fresh bucket. */
export async function testBlobs(): Promise<{ url?: string; drop(): Promise<void> }> {
  if (!TEST_BLOBS) return { drop: async () => {} };
  const s3 = await import('@aws-sdk/client-s3');
  const client = new s3.S3Client({
    endpoint: process.env.ROSTER_S3_ENDPOINT,
    forcePathStyle: true,
    region: process.env.AWS_REGION ?? 'us-east-1',
  });
  const bucket = `roster-test-${randomBytes(6).toString('hex')}`;
  await client.send(new s3.CreateBucketCommand({ Bucket: bucket }));
  return {
    url: `s3://${bucket}/media`,
    async drop() {
      const listed = await client.send(new s3.ListObjectsV2Command({ Bucket: bucket }));
      for (const o of listed.Contents ?? []) {
        await client.send(new s3.DeleteObjectCommand({ Bucket: bucket, Key: o.Key }));
      }
      await client.send(new s3.DeleteBucketCommand({ Bucket: bucket }));
      client.destroy();
    },
  };
}

/** The prefix of the databases a run keeps for reuse, named after its template. */
const reusePrefix = (template: string) =>
  `${template.replace(/^roster_template_/, 'roster_reuse_')}_`;

/** The databases this run kept for reuse, for the run's teardown to drop. */
export async function reusedDatabases(admin: string, template: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [reusePrefix(template)],
    );
    return rows.map((r) => r.datname);
  } finally {
    await client.end();
  }
}

interface Reusable {
  name: string;
  url: string;
  /** A session on the database itself, kept open between tests for the reset. */
  client: pg.Client;
}

/** This worker's emptied databases (module state: a worker runs its files one at a time). */
const idle: Reusable[] = [];

/**
 * A migrated database for an in-process test whose every session ends before `giveBack`:
 * one this worker used before, put back as the template made it (helpers/database-state.ts),
 * or a new copy of the template. One its test changed the schema of is dropped instead.
 */
async function lendDatabase(): Promise<{ url: string; giveBack(): Promise<void> }> {
  const state = inject('pgTemplateState');
  const template = inject('pgTemplate');
  if (!TEST_DATABASE || !state || !template) throw new Error('ROSTER_TEST_DATABASE is not set');
  let db = idle.pop();
  if (!db) {
    const { name, url } = await createDatabase(TEST_DATABASE, template, reusePrefix(template));
    const client = new pg.Client({ connectionString: url });
    // A session ended under it fails the next reset, which then drops the database.
    client.on('error', () => {});
    await client.connect();
    db = { name, url, client };
  }
  const lent = db;
  return {
    url: lent.url,
    async giveBack() {
      if (await restoreState(lent.client, state).catch(() => false)) {
        idle.push(lent);
        return;
      }
      await lent.client.end().catch(() => {});
      await dropDatabase(TEST_DATABASE!, lent.name);
    },
  };
}

/** Opens the test store on `dataDir` (and a database of its own, on PostgreSQL). */
export async function openTestStore(
  dataDir: string,
  tuning: Pick<
    OpenOptions,
    'statementTimeoutMs' | 'poolSize' | 'searchSortsUpTo' | 'searchWalksUpTo'
  > = {},
): Promise<{ store: Store; database?: string; blobs?: string; dispose(): Promise<void> }> {
  const db = TEST_DATABASE
    ? await lendDatabase().then((d) => ({ url: d.url, drop: d.giveBack }))
    : await testDatabase();
  const blobs = await testBlobs();
  const store = await openStore({
    dataDir,
    target: databaseTarget(db.url, dataDir),
    blobs: blobs.url,
    ...tuning,
  });
  return {
    store,
    database: db.url,
    blobs: blobs.url,
    async dispose() {
      await store.close();
      await db.drop();
      await blobs.drop();
    },
  };
}

/**
 * Runs SQL on the store's database, with `?` placeholders on either backend; answers rows.
 * For tests only: the service never reaches past the Store interface.
 */
export async function sql<R = Record<string, unknown>>(
  store: Store,
  text: string,
  ...params: unknown[]
): Promise<R[]> {
  if (store.engine === 'sqlite') {
    const stmt = sqliteHandle(store).prepare(text);
    if (stmt.reader) return stmt.all(...params) as R[];
    stmt.run(...params);
    return [];
  }
  let n = 0;
  const { rows } = await postgresHandle(store).query(
    text.replace(/\?/g, () => `$${++n}`),
    params,
  );
  return rows as R[];
}
