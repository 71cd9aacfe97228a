import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/db.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore as openStore } from '../../src/store/sqlite/store.js';
import { ftsExpression } from '../../src/store/sqlite/users.repo.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'roster-db-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test('every open sets WAL, synchronous=FULL, a busy timeout and a 64 MiB page cache, also on reopen', () => {
  const dir = tempDir();
  for (let i = 0; i < 2; i++) {
    const db = openDatabase(dir);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('cache_size', { simple: true })).toBe(-65536);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
  }
});

test('a database from a newer roster is refused with a clear message', () => {
  const dir = tempDir();
  const db = openDatabase(dir);
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  expect(() => openDatabase(dir)).toThrow(/newer than this roster/);
});

test('ftsExpression quotes every word as a prefix term and drops syntax', () => {
  expect(ftsExpression('ann lee')).toBe('"ann"* "lee"*');
  expect(ftsExpression('"a" OR b*')).toBe('"a"* "OR"* "b"*');
  expect(ftsExpression('*** ()')).toBeNull();
  expect(ftsExpression('Müller')).toBe('"Müller"*');
});

test('the data dir becomes 0700 and its database files 0600, whatever existed before', () => {
  const dir = tempDir();
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'roster.db'), '', { mode: 0o644 });
  chmodSync(join(dir, 'roster.db'), 0o644);
  const store = openStore(dir);
  const mode = (p: string) => statSync(p).mode & 0o777;
  expect(mode(dir)).toBe(0o700);
  for (const f of ['roster.db', 'roster.db-wal', 'roster.db-shm']) {
    expect(mode(join(dir, f)), f).toBe(0o600);
  }
  expect(store.permissionWarnings).toEqual([
    `data dir ${dir} was mode 0755; set to 0700`,
    `${join(dir, 'roster.db')} was mode 0644; set to 0600`,
  ]);
  store.close();
  const again = openStore(dir);
  expect(again.permissionWarnings).toEqual([]);
  again.close();
});

test('a fresh data dir is made 0700 with a 0600 database, and nothing to warn about', () => {
  const dir = join(tempDir(), 'fresh');
  const store = openStore(dir);
  expect(store.permissionWarnings).toEqual([]);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  for (const f of ['roster.db', 'roster.db-wal', 'roster.db-shm']) {
    expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
  }
  store.close();
});
