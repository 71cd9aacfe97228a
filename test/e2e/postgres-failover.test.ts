/**
 * Two `roster serve` replicas behind haproxy, on a Patroni cluster (three PostgreSQL nodes,
 * synchronous replication, three etcd members, haproxy routing to the primary), under a steady
 * load of creates and updates, through every way a primary goes: its postmaster killed (Patroni
 * restarts it in place), a planned switchover, the node lost (Patroni and PostgreSQL, SIGKILL),
 * and a Patroni lost while its PostgreSQL runs on (the split-brain case). Nothing acknowledged is
 * lost, no request is a 500, every refused one is a 503 with Retry-After, and the replicas live
 * through it all without a restart.
 *
 * Patroni's timing is shortened here (ttl 5 s) to keep CI's budget; bench/failover.mjs measures
 * the switch with the documented settings and with Patroni's defaults.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, expect, test } from 'vitest';
import { roster } from '../helpers/e2e.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';
import { requester, V3 } from '../helpers/server.js';
import {
  type Cluster,
  clusterBase,
  hasFailoverCluster,
  queryNode,
  startCluster,
} from './helpers/failover.js';
import { balancer, hasHaproxy, replicas } from './helpers/replicas.js';

const scope = scratch();
afterAll(scope.cleanup);

const WRITERS = 4;
/** The HR file imported across the lost node: every row once, the report and the service agree. */
const IMPORT_ROWS = 1500;
/** Each writer's pause between requests: ~80 writes a second in all, through every switch. */
const PACE_MS = 50;

interface Outcome {
  at: number;
  ok: boolean;
  status: number;
}

test.runIf(hasFailoverCluster && hasHaproxy)(
  'through a postmaster crash, a switchover, a lost node (an import running) and a lost Patroni: no acknowledged write lost, no 500',
  async () => {
    const dir = scope.temp('roster-failover-');
    const cluster: Cluster = await startCluster(dir, clusterBase(), {
      ttl: 5,
      loopWait: 1,
      retryTimeout: 2,
    });
    scope.defer(() => cluster.stop());

    const set = await replicas(scope, { count: 2, database: cluster.url });
    const front = await balancer(
      scope,
      set.list.map((r) => r.port),
    );
    const req = requester(front.url, set.token);
    const json = { 'content-type': V3, accept: V3 };
    for (let w = 0; w < WRITERS; w++) {
      const r = await req('POST', '/api/users', {
        headers: json,
        body: JSON.stringify({
          externalId: `steady-${w}`,
          email: `steady-${w}@example.com`,
          sendMail: false,
        }),
      });
      expect(r.status).toBe(201);
    }

    // What the load was told: creates acknowledged (email → id), each writer's last
    // acknowledged update and its last attempted one, and every answer that was not a success.
    const created = new Map<string, string>();
    const lastAcked = new Array<number>(WRITERS).fill(-1);
    const lastTried = new Array<number>(WRITERS).fill(-1);
    const refused: string[] = [];
    const outcomes: Outcome[] = [];
    let running = true;
    const writer = async (w: number) => {
      for (let i = 0; running; i++) {
        const at = Date.now();
        let status = 0;
        try {
          if (i % 2 === 0) {
            const email = `load-${w}-${i}@example.com`;
            const r = await req('POST', '/api/users', {
              headers: json,
              body: JSON.stringify({ email, sendMail: false }),
            });
            status = r.status;
            if (r.status === 201) created.set(email, r.json.id);
            else if (r.status !== 503 || !r.headers['retry-after']) {
              refused.push(`POST ${r.status} ${r.text.slice(0, 160)}`);
            }
          } else {
            lastTried[w] = i;
            const r = await req('PUT', `/api/users/steady-${w}`, {
              headers: json,
              body: JSON.stringify({ profile: { position: String(i) } }),
            });
            status = r.status;
            if (r.status === 200) lastAcked[w] = i;
            else if (r.status !== 503 || !r.headers['retry-after']) {
              refused.push(`PUT ${r.status} ${r.text.slice(0, 160)}`);
            }
          }
        } catch (err) {
          refused.push(`${i % 2 === 0 ? 'POST' : 'PUT'} ${(err as Error).message}`);
        }
        outcomes.push({ at, ok: status === 200 || status === 201, status });
        await pause(PACE_MS);
      }
    };
    const load = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));

    /** Writes get through again: one sent from now on succeeds. */
    const writesFlow = async () => {
      const since = Date.now();
      try {
        await eventually(() => outcomes.some((o) => o.at >= since && o.ok), 60_000);
      } catch (err) {
        // What the load saw meanwhile, and what the replicas logged: the failure's story.
        const statuses = outcomes.filter((o) => o.at >= since).map((o) => o.status);
        const logs = set.list.flatMap((r) => r.logs.slice(-15));
        throw new Error(
          `${(err as Error).message}\nstatuses: ${statuses.slice(-40)}\n${logs.join('\n')}`,
        );
      }
    };
    const leaderOtherThan = async (name?: string) => {
      await eventually(async () => {
        const now = await cluster.leader();
        return now !== undefined && now.name !== name;
      }, 30_000);
      return (await cluster.leader())!;
    };
    const syncStandby = async () => {
      await eventually(
        async () => (await cluster.members()).some((m) => m.role === 'sync_standby'),
        30_000,
      );
      return (await cluster.members()).find((m) => m.role === 'sync_standby')!;
    };
    await eventually(() => outcomes.filter((o) => o.ok).length > 20, 10_000);

    // 1. The postmaster alone: Patroni starts PostgreSQL again on the same node, no failover.
    const first = await leaderOtherThan();
    const pid = cluster.postmasterPid(first.name);
    cluster.killPostmaster(first.name);
    await eventually(() => ![undefined, pid].includes(cluster.postmasterPid(first.name)), 30_000);
    await cluster.healthy();
    await writesFlow();
    expect((await leaderOtherThan()).name).toBe(first.name);

    // 2. A planned switchover to the synchronous standby.
    const sync = await syncStandby();
    await cluster.switchover(first.name, sync.name);
    expect((await leaderOtherThan(first.name)).name).toBe(sync.name);
    await cluster.healthy();
    await writesFlow();

    // 3. The leader's node lost: its key expires after ttl, the synchronous standby is promoted.
    // An import runs across it, retrying the 503s within its --timeout.
    const work = scope.temp('roster-failover-import-');
    const csv = join(work, 'people.csv');
    const report = join(work, 'run.csv');
    writeFileSync(
      csv,
      `externalId,email,firstName,lastName\n${Array.from(
        { length: IMPORT_ROWS },
        (_, i) => `hr-${i},hr-${i}@example.com,Ann,Row${i}`,
      ).join('\n')}\n`,
    );
    const imported = roster(
      ['users', 'import', csv, '--no-send-mail', '--report', report, '--timeout', '60'],
      {
        env: { ROSTER_BASE_URL: `${front.url}/api`, ROSTER_TOKEN: set.token, HOME: work },
        timeoutMs: 120_000,
      },
    );
    await eventually(() => {
      try {
        return readFileSync(report, 'utf8').split('\n').length > 50;
      } catch {
        return false;
      }
    }, 30_000);
    const lost = await leaderOtherThan();
    cluster.killNode(lost.name);
    const promoted = await leaderOtherThan(lost.name);
    await writesFlow();
    const run = await imported;
    expect(run.exitCode, run.stderr).toBe(0);
    // Only a synchronous standby may be promoted: the one left must become it first.
    await syncStandby();

    // 4. The new leader's Patroni lost, its PostgreSQL left running: haproxy's check fails, the
    // remaining standby is promoted, and the old primary — still up, still thinking it leads —
    // gets no write through Roster from then on.
    cluster.killPatroni(promoted.name);
    await leaderOtherThan(promoted.name);
    await writesFlow();
    // The switch may still refuse a request or two (503, as any client retries them).
    let marker = { status: 0, json: { id: '' } };
    await eventually(async () => {
      marker = await req('POST', '/api/users', {
        headers: json,
        body: JSON.stringify({ email: 'after-partition@example.com', sendMail: false }),
      });
      expect([201, 503]).toContain(marker.status);
      return marker.status === 201;
    }, 30_000);
    const onOld = await queryNode<{ n: number }>(
      cluster.direct(promoted),
      'SELECT count(*)::int AS n FROM users WHERE id = $1',
      [marker.json.id],
    );
    expect(onOld[0]!.n).toBe(0);

    running = false;
    await load;

    // Every acknowledged write is there, with its content; nobody was created twice.
    expect(refused).toEqual([]);
    const seen = new Map<string, string[]>();
    for (let offset = 0; ; offset += 1000) {
      const page = await req(
        'GET',
        `/api/users?status=activated,pending&limit=1000&offset=${offset}`,
        {
          headers: { accept: 'application/vnd.service.accessors.users.v2+json' },
        },
      );
      expect(page.status).toBe(200);
      for (const u of page.json.data) {
        seen.set(u.email.value ?? u.email, [...(seen.get(u.email.value ?? u.email) ?? []), u.id]);
      }
      if (page.json.data.length < 1000) break;
    }
    for (const [email, ids] of seen) expect(ids, email).toHaveLength(1);
    for (const [email, id] of created) expect(seen.get(email), email).toEqual([id]);
    // The import's report and the service agree exactly: each row once, created, with its id.
    const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
    const rows = new Map(lines.map((l) => l.split(',')).map((c) => [c[2], c]));
    expect(rows.size).toBe(IMPORT_ROWS);
    for (let i = 0; i < IMPORT_ROWS; i++) {
      const c = rows.get(`hr-${i}`)!;
      expect([c[3], c[5]], `hr-${i}`).toEqual(['create', 'ok']);
      expect(seen.get(`hr-${i}@example.com`), `hr-${i}`).toEqual([c[4]]);
    }
    for (let w = 0; w < WRITERS; w++) {
      const r = await req('GET', `/api/users/steady-${w}`, { headers: { accept: V3 } });
      const position = Number(r.json.profile.position);
      expect(position).toBeGreaterThanOrEqual(lastAcked[w]!);
      expect(position).toBeLessThanOrEqual(lastTried[w]!);
    }
    // The replicas lived through all of it.
    for (const r of set.list) expect(r.child?.exitCode ?? null).toBeNull();
    expect(created.size).toBeGreaterThan(50);
  },
  240_000,
);
