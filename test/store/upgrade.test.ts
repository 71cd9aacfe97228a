/**
 * What the previous release wrote opens, migrates and serves with nothing lost: a data dir
 * (SQLite) and a PostgreSQL dump with its media dir, made by that release's CLI as a user would
 * (fixtures/upgrade/make.mjs; one directory per release). Add a release's fixture when it ships.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../src/server/config.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { BACKEND, freshDatabase, TEST_DATABASE } from '../helpers/database.js';
import { requester, USERS_V2, V3 } from '../helpers/server.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'upgrade');
const RELEASES = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

interface Written {
  adminToken: string;
  readToken: string;
  mediumId: string;
}

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The release's data, copied to a temp dir (and its dump loaded), opened by this code. */
async function open(release: string): Promise<{ store: Store; dataDir: string }> {
  const from = join(FIXTURES, release);
  const dataDir = mkdtempSync(join(tmpdir(), 'roster-upgrade-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  cpSync(join(from, BACKEND), dataDir, { recursive: true });
  let url: string | undefined;
  if (TEST_DATABASE) {
    const db = await freshDatabase({ migrated: false });
    cleanups.push(db.drop);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(readFileSync(join(from, 'postgres.sql'), 'utf8'));
    } finally {
      await client.end();
    }
    url = db.url;
  }
  const store = await openStore({ dataDir, target: databaseTarget(url, dataDir) });
  cleanups.push(() => store.close());
  return { store, dataDir };
}

describe.each(RELEASES)('data written by release %s', (release) => {
  const written: Written = JSON.parse(
    readFileSync(join(FIXTURES, release, 'manifest.json'), 'utf8'),
  )[BACKEND];

  it('opens, migrates and serves its users, tokens and media unchanged', async () => {
    const { store, dataDir } = await open(release);
    const app: App = await createApp({
      store,
      config: { dataDir, vendor: 'service', maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES },
      log: () => {},
    });
    const { url } = await app.listen(0);
    cleanups.push(() => app.close(1000));
    const req = requester(url, written.adminToken);

    const users = await req('GET', '/api/users?status=activated,pending,deactivated&limit=10', {
      headers: { accept: USERS_V2 },
    });
    expect(users.status).toBe(200);
    // The upgrade counted the release's users for the totals it now keeps.
    expect(users.json.total).toBe(3);
    const summary = users.json.data
      .map((u: Record<string, any>) => [
        u.externalId ?? u.userName?.value,
        u.status,
        u.email?.value ?? null,
      ])
      .sort((a: string[], b: string[]) => String(a[0]).localeCompare(String(b[0])));
    expect(summary).toEqual([
      ['bob', 'pending', null],
      ['E-1', 'pending', 'ann@example.com'],
      ['E-2', 'deactivated', 'juergen@example.com'],
    ]);
    const ann = await req('GET', '/api/users/E-1', {
      headers: { accept: V3 },
      token: written.readToken,
    });
    expect(ann.status).toBe(200);
    expect(ann.json.profile).toMatchObject({ firstName: 'Ann', lastName: 'Lee' });
    const bob = users.json.data.find((u: Record<string, any>) => u.userName?.value === 'bob');
    const bobV3 = await req('GET', `/api/users/${bob.id}`, { headers: { accept: V3 } });
    expect(bobV3.json.profile).toMatchObject({ department: 'IT', costCenter: 'CC-7' });

    const media = await req('GET', '/api/media', { token: written.readToken });
    expect(media.json.data.map((m: { id: string }) => m.id)).toEqual([written.mediumId]);
    const file = await fetch(media.json.data[0].resourceInfo.url);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).toString()).toBe(
      'a medium written by the previous release\n',
    );

    // Its tokens were made before tokens named where they work: they keep working on /api
    // (above) and on /scim alike, as they did (store migrations: tokens.channels).
    const scim = await req('GET', '/scim/v2/Users', {
      token: null,
      headers: { authorization: `Bearer ${written.readToken}`, accept: 'application/scim+json' },
    });
    expect(scim.status, scim.text).toBe(200);

    // It takes writes, and the release's users still hold their keys.
    const made = await req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ email: 'new@example.com' }),
    });
    expect(made.status).toBe(201);
    const after = await req('GET', '/api/users?status=activated,pending,deactivated', {
      headers: { accept: USERS_V2 },
    });
    expect(after.json.total).toBe(4);
    const taken = await req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ email: 'ANN@example.com' }),
    });
    expect(taken.status).toBe(409);
  });
});
