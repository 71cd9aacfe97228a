/**
 * PostgreSQL's schema migrations, in order (db.ts runs them, recorded in `schema_migrations`):
 * the declared list (../migrations/list.ts) in PostgreSQL's dialect. Add a migration there, not
 * here; schema-sql.ts has the steps written for PostgreSQL alone and how they mirror SQLite's.
 */
import { MIGRATIONS as DECLARED } from '../migrations/list.js';
import {
  migrationNames,
  type PostgresMigration,
  postgresMigrations,
} from '../migrations/render.js';
import { migrationQuery } from './migration-query.js';

/** A migration is SQL, or a step over the migrating connection (in the migration's transaction). */
export type Migration = PostgresMigration;

export const MIGRATIONS: Migration[] = postgresMigrations(DECLARED, migrationQuery);
export const MIGRATION_NAMES: string[] = migrationNames('postgres', DECLARED);
