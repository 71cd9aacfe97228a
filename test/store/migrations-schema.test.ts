/**
 * Migrations declared once (src/store/migrations/) render, per backend, the schema the
 * hand-written lists made: after every version, not only the last, so a database left at any
 * version by an earlier release upgrades the same way. The files in __schema__ were written
 * from the hand-written lists (commit d568af2, before the declared ones) and are not to be
 * rewritten for an existing version; a new migration adds its version's section (vitest -u).
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, expect, test } from 'vitest';
import { EVENT_COLUMNS } from '../../src/store/common/event-rows.js';
import { MIGRATIONS as POSTGRES } from '../../src/store/postgres/schema.js';
import { MIGRATIONS as SQLITE } from '../../src/store/sqlite/migrations.js';
import { BACKEND, freshDatabase } from '../helpers/database.js';
import { postgresSchema, sqliteSchema } from '../helpers/schema-dump.js';
import { scratch } from '../helpers/scratch.js';

const scope = scratch();
afterAll(scope.cleanup);

/** What a version changed in the schema: its lines gone (-) and new (+), as a reviewer reads it. */
function sections() {
  let before: string[] = [];
  const out: string[] = [];
  return {
    add(version: number, after: string[]) {
      const gone = before.filter((l) => !after.includes(l));
      const made = after.filter((l) => !before.includes(l));
      out.push(
        `## version ${version}`,
        ...gone.map((l) => `- ${l}`),
        ...made.map((l) => `+ ${l}`),
        '',
      );
      before = after;
    },
    text: () => out.join('\n'),
  };
}

// Each in its backend's project only (declared there, not skipped elsewhere).
if (BACKEND === 'sqlite')
  test('SQLite: the schema after each migration', async () => {
    const db = new Database(':memory:');
    scope.defer(() => db.close());
    const out = sections();
    for (const [v, migration] of SQLITE.entries()) {
      db.transaction(() => {
        if (typeof migration === 'string') db.exec(migration);
        else migration(db);
        db.exec(`PRAGMA user_version = ${v + 1}`);
      }).immediate();
      out.add(v + 1, sqliteSchema(db));
    }
    await expect(out.text()).toMatchFileSnapshot('./__schema__/sqlite.txt');
  });

if (BACKEND === 'postgres')
  test('PostgreSQL: the schema after each migration', async () => {
    const database = await freshDatabase({ migrated: false });
    scope.defer(database.drop);
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    scope.defer(() => pool.end());
    const client = await pool.connect();
    scope.defer(() => client.release());
    const out = sections();
    for (const [v, migration] of POSTGRES.entries()) {
      await client.query('BEGIN');
      if (typeof migration === 'string') await client.query(migration);
      else await migration(client);
      await client.query('COMMIT');
      out.add(v + 1, await postgresSchema(client));
    }
    await expect(out.text()).toMatchFileSnapshot('./__schema__/postgres.txt');
  });

if (BACKEND === 'postgres')
  test('PostgreSQL: roster_record_event inserts its arguments as EVENT_COLUMNS orders them (events.repo.ts passes them so)', async () => {
    const database = await freshDatabase();
    scope.defer(database.drop);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    scope.defer(() => client.end());
    const { rows } = await client.query<{ def: string }>(
      "SELECT pg_get_functiondef('roster_record_event'::regproc) AS def",
    );
    const columns = /INSERT INTO events \(([^)]*)\)/.exec(rows[0]!.def.replace(/\s+/g, ' '))?.[1];
    expect(columns?.split(',').map((c) => c.trim())).toEqual([...EVENT_COLUMNS]);
  });
