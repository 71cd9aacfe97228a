/**
 * The declared migrations' rules that no schema shows (store/migrations/): a version a backend
 * would take with nothing in it is refused at load, naming it, and a name or custom field id
 * that is not one never reaches SQL.
 */
import { expect, test } from 'vitest';
import { postgresMigrations, sqliteMigrations } from '../../src/store/migrations/render.js';
import {
  addColumn,
  createTable,
  moveCustomField,
  perDialect,
} from '../../src/store/migrations/steps.js';

test("a migration with nothing for one backend must say it is the other's", () => {
  const declared = [
    { why: 'FTS5 only', steps: [perDialect({ sqlite: 'SELECT 1;', postgres: null })] },
  ];
  expect(sqliteMigrations(declared)).toEqual(['SELECT 1;']);
  expect(() => postgresMigrations(declared, async () => {})).toThrow(
    "migration 1 (FTS5 only) has no step for postgres: mark it 'only'",
  );
  expect(
    postgresMigrations([{ ...declared[0]!, only: 'sqlite' as const }], async () => {}),
  ).toEqual([]);
});

test('names and custom field ids are checked before they are written into SQL', () => {
  expect(() => createTable('users; DROP TABLE users', {})).toThrow(/is not a name/);
  expect(() => addColumn('users', 'Cost Center', { type: 'text' })).toThrow(/is not a name/);
  expect(() => moveCustomField("cost'center", 'cost_center')).toThrow(/is not a custom field id/);
  expect(() => moveCustomField('cost-center', 'cost_center')).not.toThrow();
});
