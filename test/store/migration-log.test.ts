/**
 * What an upgrade tells as it runs (serve prints it: at 1M users one migration takes a minute,
 * and a silent start looks hung), on the backend the run tests: each pending migration of an
 * existing database as it starts, with what it is for, and as it ends, with how long it took;
 * a new database's schema is made without a word.
 */
import { afterAll, expect, test } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations/list.js';
import { migrationNames } from '../../src/store/migrations/render.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { testDatabase } from '../helpers/database.js';
import {
  AFTER_SPELLED_OUT,
  forgetMigrations,
  storeToReopen,
  UNDO_AFTER_SPELLED_OUT,
} from '../helpers/migrations.js';
import { scratch } from '../helpers/scratch.js';

const scope = scratch();
afterAll(scope.cleanup);

test('an upgrade tells each pending migration as it starts and ends', async () => {
  const { store, open } = await storeToReopen(scope);
  const names = migrationNames(store.engine, MIGRATIONS);
  const of = names.length;
  const forgotten = AFTER_SPELLED_OUT[store.engine];
  await forgetMigrations(store, forgotten, UNDO_AFTER_SPELLED_OUT[store.engine]);
  await store.close();

  const lines: string[] = [];
  const upgraded = await open({ onMigration: (line) => lines.push(line) });
  scope.defer(() => upgraded.close());
  expect(lines).toHaveLength(2 * forgotten);
  const versions = Array.from({ length: forgotten }, (_, i) => of - forgotten + 1 + i);
  for (const [i, version] of versions.entries()) {
    expect(lines[2 * i]).toBe(
      `database: upgrading the schema to version ${version} of ${of}: ${names[version - 1]}…`,
    );
    expect(lines[2 * i + 1]).toMatch(
      new RegExp(`^database: schema version ${version} of ${of} in \\d+\\.\\d s$`),
    );
  }
});

test('a new database is made without a word', async () => {
  const dataDir = scope.temp('roster-migration-log-');
  const db = await testDatabase();
  scope.defer(db.drop);
  const lines: string[] = [];
  const store = await openStore({
    dataDir,
    target: databaseTarget(db.url, dataDir),
    onMigration: (line) => lines.push(line),
  });
  scope.defer(() => store.close());
  expect(lines).toEqual([]);
});
