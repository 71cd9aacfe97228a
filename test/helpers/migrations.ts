/** Puts a migrated test store back to what an earlier release left, for a migration's test. */
import { databaseTarget, type OpenOptions, openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { sql, testDatabase } from './database.js';

/**
 * A bootstrapped store of its own on the run's backend (a data dir in `scope`, a database of
 * its own on PostgreSQL) that a migration's test closes and `open`s again; `at` places rows in
 * its main branch.
 */
export async function storeToReopen(scope: {
  temp(prefix: string): string;
  defer(fn: () => unknown): void;
}) {
  const dataDir = scope.temp('roster-migration-');
  const db = await testDatabase();
  scope.defer(db.drop);
  const open = (extra: Partial<OpenOptions> = {}) =>
    openStore({ dataDir, target: databaseTarget(db.url, dataDir), ...extra });
  const store = await open();
  await store.bootstrap();
  const tenant = (await store.tenants.byHost('*'))!;
  const branch = (await store.branches.byName(tenant.id, 'main'))!;
  return { open, store, tenant, branch, at: { tenant_id: tenant.id, branch_id: branch.id } };
}

/**
 * Undoes the newest migrations: `undo` is the SQL that takes back what they made (newest
 * first), run before their versions are forgotten, so the next open runs them again.
 */
export async function forgetMigrations(store: Store, count: number, undo: string[] = []) {
  for (const statement of undo) await sql(store, statement);
  if (store.engine === 'sqlite') {
    const [version] = await sql<{ user_version: number }>(store, 'PRAGMA user_version');
    await sql(store, `PRAGMA user_version = ${version!.user_version - count}`);
  } else {
    await sql(
      store,
      `DELETE FROM schema_migrations WHERE version > (SELECT max(version) FROM schema_migrations) - ${count}`,
    );
  }
}

/** The part of UNDO_AFTER_SPELLED_OUT both backends take back. */
const UNDO_BOTH_AFTER_SPELLED_OUT = [
  // (PostgreSQL's functions in PL/pgSQL replace theirs in place: they run again as they are,
  // and a store at an earlier version still writes its events through them)
  // the users without an email, in each next key's order
  'DROP INDEX users_without_email_by_external_id',
  'DROP INDEX users_without_email_by_created',
  'DROP INDEX users_without_email_by_first_name',
  'DROP INDEX users_without_email_by_name',
  // webhook endpoints and their deliveries (their indexes go with them)
  'DROP TABLE webhook_deliveries',
  'DROP TABLE webhooks',
];

/**
 * The newest migrations, which both backends have (newest first): each delivery's manual
 * retries, each endpoint's replaced secrets.
 */
const UNDO_BOTH_NEWEST = [
  'ALTER TABLE webhook_deliveries DROP COLUMN retries',
  'ALTER TABLE webhooks DROP COLUMN retired_secrets',
];

/**
 * What every migration released after SQLite's 16 (search spelled out) made, taken back (newest
 * first), per backend: a migration appended later adds its undo here, so the tests that start
 * from an earlier release (the login index, the refold, SQLite's 16) keep starting from it.
 */
export const UNDO_AFTER_SPELLED_OUT: Record<Store['engine'], string[]> = {
  sqlite: [
    ...UNDO_BOTH_NEWEST,
    // SQLite's 20: each user's search words in a column
    'ALTER TABLE users DROP COLUMN words',
    // SQLite's 19: a target's keys in a table of their own
    'DROP TRIGGER events_target',
    'DROP TABLE event_targets',
    'CREATE INDEX events_by_target ON events (branch_id, target_id, sequence)',
    ...UNDO_BOTH_AFTER_SPELLED_OUT,
  ],
  postgres: [...UNDO_BOTH_NEWEST, ...UNDO_BOTH_AFTER_SPELLED_OUT],
};

/**
 * What the login-name migration and every one after it made, taken back (newest first), and
 * how many migrations that is.
 */
const UNDO_LOGIN_INDEX_ITSELF = [
  // the login name's unique index
  'DROP INDEX users_login',
  'ALTER TABLE users DROP COLUMN login_dup',
];
export const UNDO_LOGIN_INDEX: Record<Store['engine'], string[]> = {
  sqlite: [...UNDO_AFTER_SPELLED_OUT.sqlite, ...UNDO_LOGIN_INDEX_ITSELF],
  postgres: [...UNDO_AFTER_SPELLED_OUT.postgres, ...UNDO_LOGIN_INDEX_ITSELF],
};

/** How many migrations each backend has after those UNDO_AFTER_SPELLED_OUT takes back. */
export const AFTER_SPELLED_OUT: Record<Store['engine'], number> = { sqlite: 6, postgres: 6 };

/**
 * How many migrations each backend has after the login-name index: forgotten with it, they run
 * again as they are (SQLite's 16 rebuilds the search entries from the users table; the webhook
 * tables, the indexes of users without an email and PostgreSQL's functions are made again).
 */
export const AFTER_LOGIN_INDEX: Record<Store['engine'], number> = {
  sqlite: 1 + AFTER_SPELLED_OUT.sqlite,
  postgres: AFTER_SPELLED_OUT.postgres,
};
