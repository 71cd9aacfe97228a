/**
 * `roster copy` never reverts what the database wrote after a copy, and a data dir served from
 * a database is not used as SQLite behind its back (#44 items 1 and 2). In-process: the copy and
 * the admin commands through run(), the services as apps on real ports. PostgreSQL project only.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createApp } from '../../../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../../../src/server/config.js';
import { databaseTarget, openStore } from '../../../../src/store/open.js';
import { cliWith } from '../../../helpers/cli-run.js';
import { freshDatabase, sql } from '../../../helpers/database.js';
import { scratch } from '../../../helpers/scratch.js';
import { requester, TEST_SECRET_HASH_COST, V3 } from '../../../helpers/server.js';

const { temp, defer, cleanup } = scratch();
afterEach(cleanup);

/** The admin token the data dir's first serve made (copied along: valid on the database too). */
let admin = '';

/**
 * A service on `dataDir` (and `database`), for as long as `fn` runs; the admin's requests. It
 * writes nothing of its own: the token is the one the first serve made.
 */
async function serving<T>(
  dataDir: string,
  database: string | undefined,
  fn: (req: ReturnType<typeof requester>) => Promise<T>,
): Promise<T> {
  const store = await openStore({ dataDir, target: databaseTarget(database, dataDir) });
  const app = await createApp({
    store,
    config: {
      dataDir,
      vendor: 'service',
      maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
      secretHashCost: TEST_SECRET_HASH_COST,
    },
    log: () => {},
  });
  try {
    const made = await store.bootstrap();
    if (made) admin = made.adminToken;
    const { url } = await app.listen(0);
    return await fn(requester(url, admin));
  } finally {
    await app.close(1000);
    await store.close();
  }
}

const json = { 'content-type': V3, accept: V3 };
const invite = (req: ReturnType<typeof requester>, email: string, externalId: string) =>
  req('POST', '/api/users', {
    headers: json,
    body: JSON.stringify({ email, externalId, sendMail: false }),
  });
const update = (req: ReturnType<typeof requester>, id: string, body: unknown) =>
  req('PUT', `/api/users/${id}`, { headers: json, body: JSON.stringify(body) });

/** A data dir with two users, copied into a fresh database. */
async function copied() {
  const db = await freshDatabase({ migrated: false });
  defer(db.drop);
  const data = temp('roster-moved-data-');
  const config = temp('roster-moved-config-');
  await serving(data, undefined, async (req) => {
    expect((await invite(req, 'ann@example.com', 'E-ann')).status).toBe(201);
    expect((await invite(req, 'bob@example.com', 'E-bob')).status).toBe(201);
  });
  const cli = cliWith({ ROSTER_CONFIG_DIR: config, HOME: config });
  const first = await cli(['copy', '--data', data, '--to', db.url, '--json']);
  expect(first.code, first.stderr).toBe(0);
  return { db, data, config, cli };
}

/** What the database holds of users, as a test compares it before and after. */
/** Rows of the database at `url`, read through a store of its own. */
const rowsIn = async (url: string, query: string) => {
  const store = await openStore({
    dataDir: temp('roster-moved-peek-'),
    target: databaseTarget(url, ''),
  });
  try {
    return await sql(store, query);
  } finally {
    await store.close();
  }
};
const usersIn = (url: string) =>
  rowsIn(url, 'SELECT external_id, status, department, location FROM users ORDER BY external_id');

describe('copy run again', () => {
  test('catches up with the data dir while the database wrote nothing of its own', async () => {
    const { db, data, cli } = await copied();
    await serving(data, undefined, async (req) => {
      expect((await update(req, 'E-ann', { profile: { department: 'IT' } })).status).toBe(200);
    });
    // A serve on the database that wrote nothing (from another data dir: a replica's) is no
    // reason to refuse.
    await serving(temp('roster-moved-replica-'), db.url, async (req) => {
      expect((await req('GET', '/api/users/E-ann', { headers: json })).status).toBe(200);
    });
    const again = await cli(['copy', '--data', data, '--to', db.url]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('copied and verified');
    expect(await usersIn(db.url)).toContainEqual(
      expect.objectContaining({ external_id: 'E-ann', department: 'IT' }),
    );
  });

  test('refuses, exit 1 and nothing written, once the database has writes the data dir lacks', async () => {
    const { db, data, cli } = await copied();
    // Served from the database (a replica with a data dir of its own): a change and a removal.
    await serving(temp('roster-moved-replica-'), db.url, async (req) => {
      expect((await update(req, 'E-ann', { profile: { department: 'Sales' } })).status).toBe(200);
      expect((await req('DELETE', '/api/users/E-bob')).status).toBe(202);
    });
    // Meanwhile the stale data dir changed too: a copy would write that.
    await serving(data, undefined, async (req) => {
      expect((await update(req, 'E-ann', { profile: { location: 'Old' } })).status).toBe(200);
    });
    const before = await usersIn(db.url);
    const again = await cli(['copy', '--data', data, '--to', db.url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('has writes the data dir does not have');
    expect(again.stderr).toContain('nothing was copied');
    expect(again.stderr).not.toContain('copied and verified');
    expect(again.stderr).not.toContain(new URL(db.url).password);
    expect(await usersIn(db.url)).toEqual(before);
    expect(before).toContainEqual(
      expect.objectContaining({ external_id: 'E-bob', status: 'deleted' }),
    );
  });

  test('a mark written by a release that measured fewer parts still lets the copy resume', async () => {
    const { db, data, cli } = await copied();
    // The mark as the release before this one wrote it: no events, webhooks or deliveries.
    await rowsIn(
      db.url,
      `UPDATE meta SET value = (value::jsonb || jsonb_build_object('writes',
         ((value::jsonb ->> 'writes')::jsonb - 'events' - 'webhooks' - 'deliveries')::text))::text
       WHERE key = 'copy.mark'`,
    );
    const mark = await rowsIn(db.url, "SELECT value FROM meta WHERE key = 'copy.mark'");
    expect(String(mark[0]!.value)).not.toContain('events');
    const again = await cli(['copy', '--data', data, '--to', db.url]);
    expect(again.code, again.stderr).toBe(0);
  });

  test('refuses once the database changed only its webhooks (a rotation the copy would take back)', async () => {
    const { db, data, cli } = await copied();
    const hooks = { 'content-type': 'application/json' };
    await serving(temp('roster-moved-replica-'), db.url, async (req) => {
      const made = await req('POST', '/api/webhooks', {
        headers: hooks,
        body: JSON.stringify({ url: 'https://hooks.example.com/in', types: ['user.*'] }),
      });
      expect(made.status, made.text).toBe(201);
      const rotated = await req('POST', `/api/webhooks/${made.json.id}/rotate-secret`, {
        headers: hooks,
      });
      expect(rotated.status, rotated.text).toBe(200);
    });
    const before = await rowsIn(db.url, 'SELECT id, secret FROM webhooks');
    expect(before).toHaveLength(1);
    const again = await cli(['copy', '--data', data, '--to', db.url]);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain('has writes the data dir does not have');
    expect(await rowsIn(db.url, 'SELECT id, secret FROM webhooks')).toEqual(before);
  });

  test('refuses once the database retried a delivery by hand (the copy would take the retry back)', async () => {
    const db = await freshDatabase({ migrated: false });
    defer(db.drop);
    const data = temp('roster-moved-data-');
    const config = temp('roster-moved-config-');
    const hooks = { 'content-type': 'application/json' };
    // A disabled endpoint with a test delivery: no worker attempt moves the mark by itself.
    const { hook, delivery } = await serving(data, undefined, async (req) => {
      const made = await req('POST', '/api/webhooks', {
        headers: hooks,
        body: JSON.stringify({ url: 'https://hooks.example.com/in', types: ['user.*'] }),
      });
      const off = { headers: hooks, body: JSON.stringify({ enabled: false }) };
      expect((await req('PATCH', `/api/webhooks/${made.json.id}`, off)).status).toBe(200);
      const test = await req('POST', `/api/webhooks/${made.json.id}/test`, { headers: hooks });
      expect(test.status, test.text).toBe(201);
      return { hook: made.json.id as string, delivery: test.json.id as string };
    });
    const cli = cliWith({ ROSTER_CONFIG_DIR: config, HOME: config });
    expect((await cli(['copy', '--data', data, '--to', db.url])).code).toBe(0);
    await serving(temp('roster-moved-replica-'), db.url, async (req) => {
      const url = `/api/webhooks/${hook}/deliveries/${delivery}/retry`;
      expect((await req('POST', url, { headers: hooks })).status).toBe(200);
    });
    const again = await cli(['copy', '--data', data, '--to', db.url]);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain('has writes the data dir does not have');
  });

  test('refuses before writing where the database made rows of its own', async () => {
    const { db, data, cli } = await copied();
    await serving(temp('roster-moved-replica-'), db.url, async (req) => {
      expect((await invite(req, 'carl@example.com', 'E-carl')).status).toBe(201);
    });
    await serving(data, undefined, async (req) => {
      expect((await update(req, 'E-ann', { profile: { location: 'Old' } })).status).toBe(200);
    });
    const before = await usersIn(db.url);
    const again = await cli(['copy', '--data', data, '--to', db.url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('has writes the data dir does not have');
    expect(again.stderr).not.toContain('run the copy again');
    expect(await usersIn(db.url)).toEqual(before);
  });
});

describe('a data dir served from the database it was copied to', () => {
  /** serve --data DIR --database URL, stopped after it listens by a config dir it cannot use. */
  const serveOnce = async (data: string, database: string) => {
    const notADir = join(temp('roster-moved-serve-'), 'config');
    writeFileSync(notADir, 'a file where the config dir should be');
    const r = await cliWith({ ROSTER_CONFIG_DIR: notADir })([
      ...['serve', '--port', '0', '--data', data, '--database', database],
    ]);
    expect(r.code, r.stderr).toBe(1);
  };

  test('is refused as SQLite, naming the database without its password; --database works', async () => {
    const { db, data, cli } = await copied();
    await serveOnce(data, db.url);
    const password = new URL(db.url).password;
    for (const args of [
      ['tokens', 'create', '--data', data],
      ['tokens', 'list', '--data', data],
      ['serve', '--port', '0', '--data', data],
      ['copy', '--data', data, '--to', db.url],
    ]) {
      const r = await cli(args, { env: { ROSTER_DATABASE_URL: undefined } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain('this data dir moved to postgres://');
      expect(r.stderr).toContain(new URL(db.url).host);
      expect(r.stderr).toContain('pass --database');
      expect(r.stderr).not.toContain(password);
      expect(r.stdout).toBe('');
    }
    const onDb = await cli(['tokens', 'create', '--data', data, '--database', db.url, '--json']);
    expect(onDb.code, onDb.stderr).toBe(0);
  });

  test('the way back: removing the mark the message names', async () => {
    const { db, data, cli } = await copied();
    await serveOnce(data, db.url);
    const refused = await cli(['tokens', 'list', '--data', data]);
    const mark = /, remove (\S+)/.exec(refused.stderr)?.[1];
    expect(mark, refused.stderr).toBe(join(data, 'moved-to-database.json'));
    rmSync(mark!);
    const r = await cli(['tokens', 'list', '--data', data, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(mark!)).toBe(false);
  });
});
