/**
 * `roster copy`: a SQLite data dir moved into PostgreSQL keeps its tokens, users and media, and
 * a re-run catches up instead of duplicating. Runs in the PostgreSQL project only.
 */
import { readFileSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { cliWith } from '../helpers/cli-run.js';
import { freshDatabase } from '../helpers/database.js';
import { profileToken, roster, spawnServe } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';
import { requester, USERS_V2, V3 } from '../helpers/server.js';
import { fixtures, uploadBody } from '../server/media/media-helpers.js';

const { temp, defer, cleanup } = scratch();
afterEach(cleanup);

const tokenOf = (config: string) => profileToken(config)!;

test('a data dir copied into PostgreSQL serves the same tokens, users and media', async () => {
  const db = await freshDatabase({ migrated: false });
  defer(db.drop);
  const data = temp('roster-copy-data-');
  const config = temp('roster-copy-config-');
  const token = await (async () => {
    const sqlite = await spawnServe(data, config);
    const req = requester(sqlite.url, tokenOf(config));
    for (let i = 0; i < 30; i++) {
      await req('POST', '/api/users', {
        headers: { 'content-type': V3, accept: V3 },
        body: JSON.stringify({ email: `c${i}@example.com`, externalId: `C-${i}` }),
      });
    }
    const { body, contentType } = uploadBody(readFileSync((await fixtures()).png), 'dot.png');
    const medium = await req('POST', '/api/media', {
      headers: { 'content-type': contentType },
      body,
    });
    expect(medium.status).toBe(200);
    sqlite.child.kill('SIGTERM');
    await sqlite.child;
    return tokenOf(config);
  })();

  const copied = await roster(['copy', '--data', data, '--to', db.url, '--json']);
  expect(copied.exitCode, String(copied.stderr)).toBe(0);
  const counts = JSON.parse(String(copied.stdout));
  expect(counts).toMatchObject({ tenants: 1, branches: 1, tokens: 1, users: 30, media: 1 });
  expect(String(copied.stderr)).not.toContain(new URL(db.url).password);

  // Changed since: a revoked token and a new user reach the database on the next run. (The
  // local admin commands run in-process: the journey is the copy.)
  const admin = cliWith({ ROSTER_CONFIG_DIR: config });
  const extra = await admin(['tokens', 'create', '--json', '--data', data]);
  const { id: extraId } = JSON.parse(extra.stdout);
  expect((await admin(['tokens', 'revoke', extraId, '--data', data])).code).toBe(0);
  const again = await roster(['copy', '--data', data, '--to', db.url, '--json']);
  expect(again.exitCode, String(again.stderr)).toBe(0);
  expect(JSON.parse(String(again.stdout))).toMatchObject({ tokens: 2, users: 30, media: 1 });
  const listed = await admin(['tokens', 'list', '-o', 'json', '--database', db.url]);
  const tokens = JSON.parse(listed.stdout) as { id: string; revokedAt: string | null }[];
  expect(tokens.find((t) => t.id === extraId)?.revokedAt).toBeTruthy();

  const pg = await spawnServe(data, config, ['--database', db.url]);
  try {
    const req = requester(pg.url, token);
    const users = await req('GET', '/api/users?status=pending&limit=100', {
      headers: { accept: USERS_V2 },
    });
    expect(users.json.total).toBe(30);
    expect((await req('GET', '/api/users/C-7', { headers: { accept: V3 } })).json).toMatchObject({
      email: { value: 'c7@example.com' },
    });
    // New rows continue after the copied ids.
    const created = await req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ email: 'after@example.com' }),
    });
    expect(created.status).toBe(201);
    const media = (await req('GET', '/api/media')).json;
    expect(media.total).toBe(1);
    const file = await fetch(media.data[0].resourceInfo.url);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(readFileSync((await fixtures()).png));
  } finally {
    pg.child.kill('SIGTERM');
    await pg.child;
  }
});

test('copy refuses a database holding other Roster data, and a URL that is not PostgreSQL', async () => {
  const db = await freshDatabase({ migrated: false });
  defer(db.drop);
  // Another deployment's data in the database, and a data dir of our own: made in this process
  // (the journey above starts serve for real); the refusals are run() against them.
  const made = async (dataDir: string, database?: string) => {
    const store = await openStore({ dataDir, target: databaseTarget(database, dataDir) });
    await store.bootstrap();
    await store.close();
  };
  await made(temp('roster-copy-other-'), db.url);
  const data = temp('roster-copy-data-');
  await made(data);
  const copy = cliWith({ ROSTER_CONFIG_DIR: temp('roster-copy-config-') });
  const refused = await copy(['copy', '--data', data, '--to', db.url]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('already holds other Roster data');
  const notPg = await copy(['copy', '--data', data, '--to', 'mysql://x@y/z']);
  expect(notPg.code).toBe(2);
  expect(notPg.stderr).toContain('is not a PostgreSQL URL');
});
