/**
 * `roster backup` reads the database `serve` would (#24 item 3): --database > ROSTER_DATABASE_URL
 * > the data dir; on PostgreSQL it refuses (exit 2) and names pg_dump, never a stale SQLite file.
 * In-process; the spawned journey is test/e2e/backup.test.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { databaseTarget, openStore } from '../../../../src/store/open.js';
import { cliWith } from '../../../helpers/cli-run.js';
import { scratch } from '../../../helpers/scratch.js';

const dirs = scratch();
afterEach(dirs.cleanup);

/** A SQLite data dir `serve` has made (closed again); its signing secret tells copies apart. */
async function dataDir(prefix: string) {
  const dir = dirs.temp(prefix);
  const store = await openStore({ dataDir: dir, target: databaseTarget(undefined, dir) });
  await store.bootstrap();
  await store.close();
  return { dir, secret: secretOf(join(dir, 'roster.db')) };
}

const secretOf = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT value FROM meta WHERE key = 'cdn.signing-secret'").pluck().get();
  } finally {
    db.close();
  }
};

const PG = 'postgres://roster:secret@127.0.0.1:1/roster';

test.each([
  ['ROSTER_DATABASE_URL', [], { ROSTER_DATABASE_URL: PG }],
  ['--database', ['--database', PG], {}],
])(
  'on PostgreSQL (%s) backup refuses, names pg_dump, and never reads the stale SQLite',
  async (_, flags, env) => {
    const stale = await dataDir('roster-backup-stale-');
    const out = join(dirs.temp('roster-backup-out-'), 'x.db');
    const r = await cliWith(env)(['backup', '--to', out, '--data', stale.dir, ...flags]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('pg_dump');
    expect(r.stderr).toContain('postgres://roster:***@127.0.0.1:1/roster');
    expect(r.stderr).not.toContain('secret');
    expect(r.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  },
);

test('--database sqlite:DIR beats ROSTER_DATABASE_URL, which beats --data', async () => {
  const a = await dataDir('roster-backup-a-');
  const b = await dataDir('roster-backup-b-');
  const out = dirs.temp('roster-backup-out-');
  const backup = (file: string, flags: string[], env: Record<string, string>) =>
    cliWith(env)(['backup', '--to', join(out, file), '--data', a.dir, ...flags]);

  const fromEnv = await backup('env.db', [], { ROSTER_DATABASE_URL: `sqlite:${b.dir}` });
  expect(fromEnv.code, fromEnv.stderr).toBe(0);
  expect(secretOf(join(out, 'env.db'))).toBe(b.secret);

  const fromFlag = await backup('flag.db', ['--database', `sqlite:${a.dir}`], {
    ROSTER_DATABASE_URL: PG,
  });
  expect(fromFlag.code, fromFlag.stderr).toBe(0);
  expect(secretOf(join(out, 'flag.db'))).toBe(a.secret);

  const plain = await backup('plain.db', [], {});
  expect(plain.code, plain.stderr).toBe(0);
  expect(secretOf(join(out, 'plain.db'))).toBe(a.secret);
});

test('a --database that names no backend is a usage error', async () => {
  const a = await dataDir('roster-backup-a-');
  const out = join(dirs.temp('roster-backup-out-'), 'x.db');
  const r = await cliWith({})(['backup', '--to', out, '--data', a.dir, '--database', 'mysql://x']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--database');
});
