/** Puts a migrated test store back to what an earlier release left, for a migration's test. */
import type { Store } from '../../src/store/store.js';
import { sql } from './database.js';

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

/** What the login-name migration made (the newest), taken back. */
export const UNDO_LOGIN_INDEX = [
  'DROP INDEX users_login',
  'ALTER TABLE users DROP COLUMN login_dup',
];
