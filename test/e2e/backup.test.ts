/** `roster backup`: a consistent copy of a live data dir, restorable as it is. */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { profileToken, roster, spawnServe, start } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';
import { requester, USERS_V2, V3 } from '../helpers/server.js';

const { temp, cleanup } = scratch();
afterEach(cleanup);

const tokenOf = (config: string) => profileToken(config)!;

test('a backup taken while serve writes is whole, 0600, and serves again as a data dir', async () => {
  const data = temp('roster-backup-data-');
  const config = temp('roster-backup-config-');
  const out = temp('roster-backup-out-');
  const first = await spawnServe(data, config);
  const req = requester(first.url, tokenOf(config));
  const create = (i: number) =>
    req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ email: `b${i}@example.com`, sendMail: false }),
    });
  for (let i = 0; i < 20; i++) await create(i);
  // Writes go on while the backup runs.
  const writing = Promise.all(Array.from({ length: 40 }, (_, i) => create(100 + i)));
  const file = join(out, 'roster-backup.db');
  const backup = roster(['backup', '--to', file, '--data', data, '--json'], {
    env: { ROSTER_CONFIG_DIR: config },
  });
  await writing;
  const r = await backup;
  expect(r.exitCode, String(r.stderr)).toBe(0);
  const reported = JSON.parse(String(r.stdout));
  expect(reported.file).toBe(file);
  expect(reported.users).toBeGreaterThanOrEqual(20);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const copy = new Database(file, { readonly: true });
  expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
  copy.close();
  first.child.kill('SIGTERM');
  await first.child;

  // Restore: the file as roster.db of a new data dir (the same token, it is in the database).
  const restored = temp('roster-restored-');
  copyFileSync(file, join(restored, 'roster.db'));
  const second = await spawnServe(restored, config);
  try {
    const list = await requester(second.url, tokenOf(config))(
      'GET',
      '/api/users?status=pending&limit=1000',
      { headers: { accept: USERS_V2 } },
    );
    expect(list.status).toBe(200);
    expect(list.json.total).toBe(reported.users);
  } finally {
    second.child.kill('SIGTERM');
    await second.child;
  }
});

test('backup refuses to overwrite without --force, and a data dir that holds nothing', async () => {
  const out = temp('roster-backup-out-');
  const file = join(out, 'exists.db');
  writeFileSync(file, 'keep me');
  const empty = temp('roster-backup-empty-');
  const refused = await roster(['backup', '--to', file, '--data', empty]);
  expect(refused.exitCode).toBe(2);
  expect(String(refused.stderr)).toContain('exists; give another file name, or --force');
  expect(readFileSync(file, 'utf8')).toBe('keep me');
  const nothing = await roster(['backup', '--to', join(out, 'new.db'), '--data', empty]);
  expect(nothing.exitCode).toBe(1);
  expect(String(nothing.stderr)).toContain(`no Roster data in ${empty}`);
});

test('a data dir the user cannot read is "permission denied", not "no Roster data"', async () => {
  // As a user the data dir is not open to: root reads everything, so a root run drops to nobody.
  const data = temp('roster-backup-closed-');
  const store = await openStore({ dataDir: data, target: databaseTarget(undefined, data) });
  await store.bootstrap();
  await store.close();
  const out = temp('roster-backup-out-');
  chmodSync(out, 0o777);
  chmodSync(data, 0o700);
  const asRoot = process.getuid?.() === 0;
  if (!asRoot) chmodSync(data, 0o000);
  const drop = asRoot ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'] : [];
  try {
    const r = await start(['backup', '--to', join(out, 'x.db'), '--data', data], {
      under: drop,
      env: { ROSTER_CONFIG_DIR: out },
    }).done;
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim()).toBe(
      `error: permission denied: cannot read the data dir ${data}; run as its owner, or give --data a data dir you can read`,
    );
    expect(existsSync(join(out, 'x.db'))).toBe(false);
  } finally {
    chmodSync(data, 0o700);
  }
});
