/**
 * `roster serve` processes on one PostgreSQL database, as replicas behind a load balancer would
 * run: started at once on an empty database, sharing tokens, revocations and the outbox, and
 * losing no acknowledged write to kill -9. Runs in the PostgreSQL project only. (The rate limit
 * shared across replicas is tested in process: test/store/postgres.test.ts.)
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { freshDatabase } from '../helpers/database.js';
import { profileToken, roster, spawnServe } from '../helpers/e2e.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';
import { requester, V3 } from '../helpers/server.js';

const { temp, defer, cleanup } = scratch();
const children: Awaited<ReturnType<typeof spawnServe>>[] = [];
afterEach(async () => {
  for (const { child } of children.splice(0)) {
    child.kill('SIGTERM');
    await child;
  }
  await cleanup();
});

async function database() {
  const db = await freshDatabase({ migrated: false });
  defer(db.drop);
  return db.url;
}

/** A replica: its own data dir (lock, scratch, outbox) and config dir, the shared database. */
async function replica(url: string, extra: string[] = []) {
  const data = temp('roster-replica-data-');
  const config = temp('roster-replica-config-');
  const served = await spawnServe(data, config, ['--database', url, ...extra]);
  children.push(served);
  return { ...served, data, config };
}

const post = (req: ReturnType<typeof requester>, email: string) =>
  req('POST', '/api/users', {
    headers: { 'content-type': V3, accept: V3 },
    body: JSON.stringify({ email }),
  });

test('replicas started at once share one schema, one admin token, every revocation at once, and the outbox (each invitation goes once); kill -9 of one loses no acknowledged write', async () => {
  const url = await database();
  const [a, b] = await Promise.all([replica(url), replica(url)]);
  const created = [a, b].filter((r) =>
    r.logs.some((l) => l.includes('created the default tenant')),
  );
  expect(created).toHaveLength(1);
  // The other one says how to make a token for it: on the database, not in its data dir.
  const other = [a, b].find((r) => r !== created[0])!;
  expect(other.logs.join('\n')).toContain(
    'ROSTER_DATABASE_URL=<the same URL> roster tokens create',
  );
  expect(other.logs.join('\n')).not.toContain(`:${new URL(url).password}@`);
  const admin = profileToken(created[0]!.config)!;
  const atA = requester(a.url, admin);
  const atB = requester(b.url, admin);
  const first = await post(atA, 'one@example.com');
  expect(first.status).toBe(201);
  const seen = await atB('GET', '/api/users?status=pending', {
    headers: { accept: 'application/vnd.service.accessors.users.v2+json' },
  });
  expect(seen.json.total).toBe(1);

  // A token made and revoked with the local admin commands on the database alone.
  const env = { ROSTER_DATABASE_URL: url, ROSTER_DATA_DIR: temp('roster-admin-') };
  const made = await roster(['tokens', 'create', '--json', '--name', 'ci'], { env });
  expect(made.exitCode, String(made.stderr)).toBe(0);
  const { id, token } = JSON.parse(String(made.stdout));
  expect((await requester(a.url, token)('GET', '/api/users')).status).toBe(200);
  expect((await requester(b.url, token)('GET', '/api/users')).status).toBe(200);
  expect((await roster(['tokens', 'revoke', id], { env })).exitCode).toBe(0);
  expect((await requester(a.url, token)('GET', '/api/users')).status).toBe(401);
  expect((await requester(b.url, token)('GET', '/api/users')).status).toBe(401);

  // Each invitation is delivered once, by whichever replica claims it.
  const reqs = [atA, atB];
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => post(reqs[i % 2]!, `invite${i}@example.com`)),
  );
  expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
  const mails = () =>
    [a, b].flatMap((r) => {
      try {
        return readdirSync(join(r.data, 'outbox')).filter((f) => f.endsWith('.eml'));
      } catch {
        return [];
      }
    });
  // With the first user's: every user created above has its invitation, once.
  const users = [...answers.map((r) => r.json.id), first.json.id].sort();
  await eventually(() => mails().length >= users.length, 10_000);
  const ids = mails().map((f) => /-([0-9a-f]{24})\.eml$/.exec(f)?.[1]);
  expect(ids.sort()).toEqual(users);

  // kill -9 of one replica during a burst of creates through it: the other one reads every
  // write the killed one acknowledged.
  const acknowledged: string[] = [];
  const burst = Array.from({ length: 60 }, (_, i) =>
    post(atA, `burst${i}@example.com`)
      .then((r) => {
        if (r.status === 201) acknowledged.push(r.json.id);
      })
      .catch(() => undefined),
  );
  await eventually(() => acknowledged.length >= 5, 10_000);
  a.child.kill('SIGKILL');
  await a.child;
  await Promise.all(burst);
  expect(acknowledged.length).toBeGreaterThanOrEqual(5);
  for (const id of acknowledged) {
    expect((await atB('GET', `/api/users/${id}`)).status, id).toBe(200);
  }
});
