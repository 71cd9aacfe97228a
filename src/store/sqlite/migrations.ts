/**
 * SQLite's schema migrations, in order (db.ts runs them, recorded in `user_version`): the
 * declared list (../migrations/list.ts) in SQLite's dialect. Add a migration there, not here.
 */
import { MIGRATIONS as DECLARED } from '../migrations/list.js';
import { migrationNames, type SqliteMigration, sqliteMigrations } from '../migrations/render.js';

/**
 * A migration is SQL, or a step over the open database (in the migration's transaction) that
 * returns the statements it made, kept as long as the database (see db.ts).
 */
export type Migration = SqliteMigration;

export const MIGRATIONS: Migration[] = sqliteMigrations(DECLARED);
export const MIGRATION_NAMES: string[] = migrationNames('sqlite', DECLARED);
