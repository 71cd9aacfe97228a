// Failover bench (issue 45): how long writes stop when the PostgreSQL primary goes, for one
// `roster serve` on the Patroni cluster of scripts/failover-test-server.sh (three nodes,
// synchronous replication, haproxy routing to the primary). A paced writer (one POST /users
// every PACE_MS) runs throughout; each figure is the time from the fault to the first write
// that follows the last refused one (0 when none was refused), the median of ROUNDS faults:
// - the leader's node lost (Patroni and postmaster, SIGKILL), with the documented settings
//   (ttl 10, loop_wait 2, retry_timeout 5) and with Patroni's defaults (30, 10, 10);
// - the leader's postmaster alone killed (Patroni restarts it in place);
// - a planned switchover (Patroni's REST API, as `patronictl switchover`).
// Needs Debian's patroni, etcd-server, etcd-client, haproxy and postgresql; without them it
// prints how to get them. Nothing is asserted.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { request } from 'undici';
import { fmt, heading, line, ROOT, serve, tempDir } from './lib.mjs';

const SCRIPT = join(ROOT, 'scripts', 'failover-test-server.sh');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PACE_MS = 20;
const V3 = 'application/vnd.service.accessors.user.v3+json';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const SETTINGS = [
  { label: 'ttl 10, loop_wait 2, retry_timeout 5', ttl: 10, loopWait: 2, retryTimeout: 5 },
  {
    label: "Patroni's defaults (ttl 30, loop_wait 10, retry_timeout 10)",
    ttl: 30,
    loopWait: 10,
    retryTimeout: 10,
  },
];

function cluster(dir, s) {
  const out = execFileSync(SCRIPT, ['start', dir, '20200'], {
    env: {
      ...process.env,
      ROSTER_FAILOVER_TTL: String(s.ttl),
      ROSTER_FAILOVER_LOOP_WAIT: String(s.loopWait),
      ROSTER_FAILOVER_RETRY_TIMEOUT: String(s.retryTimeout),
    },
    encoding: 'utf8',
  });
  const env = Object.fromEntries(
    [...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2]]),
  );
  const apis = env.ROSTER_FAILOVER_PATRONI.split(',');
  const members = async () => {
    for (const api of apis) {
      try {
        return (await (await fetch(`${api}/cluster`, { signal: AbortSignal.timeout(1000) })).json())
          .members;
      } catch {}
    }
    return [];
  };
  const pid = (f) => Number(readFileSync(f, 'utf8').split('\n')[0]);
  const kill = (f) => {
    try {
      process.kill(pid(f), 'SIGKILL');
    } catch {}
  };
  return {
    url: env.ROSTER_FAILOVER_DATABASE,
    apis,
    members,
    killNode: (n) => {
      kill(join(dir, 'run', `patroni-${n}.pid`));
      kill(join(dir, n, 'data', 'postmaster.pid'));
    },
    killPostmaster: (n) => kill(join(dir, n, 'data', 'postmaster.pid')),
    postmasterPid: (n) => {
      try {
        return pid(join(dir, n, 'data', 'postmaster.pid'));
      } catch {
        return undefined;
      }
    },
    restartNode: (n) => execFileSync(SCRIPT, ['node', dir, n.replace('pg', '')]),
    stop: () => execFileSync(SCRIPT, ['stop', dir]),
  };
}

async function until(check, ms) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await pause(100);
  }
}

async function healthy(c) {
  await until(async () => {
    const m = await c.members();
    return (
      m.length === 3 &&
      m.every((x) => x.state === 'running' || x.state === 'streaming') &&
      m.some((x) => x.role === 'sync_standby')
    );
  }, 120_000);
}

/** A writer that records when each write was sent and whether it succeeded. */
function writer(origin, token) {
  const outcomes = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const at = Date.now();
      try {
        const r = await request(`${origin}/api/users`, {
          method: 'POST',
          headers: { authorization: `Basic ${token}`, 'content-type': V3, accept: V3 },
          body: JSON.stringify({ email: `bench-${at}-${i}@example.com`, sendMail: false }),
          headersTimeout: 30_000,
        });
        await r.body.dump();
        outcomes.push({ at, ok: r.statusCode === 201, status: r.statusCode });
      } catch {
        outcomes.push({ at, ok: false, status: 0 });
      }
      await pause(PACE_MS);
    }
  })();
  /**
   * The outage a fault at `since` caused, once the cluster has settled: from the fault to the
   * first success after the last refused write (0 when none was refused), and how many were.
   */
  const outage = async (since) => {
    const settled = Date.now();
    await until(() => outcomes.some((o) => o.at > settled && o.ok), 180_000);
    const refused = outcomes.filter((o) => o.at >= since && !o.ok);
    if (refused.length === 0) return { seconds: 0, refusedFor: 0, refused: 0 };
    const last = refused[refused.length - 1];
    const back = outcomes.find((o) => o.at > last.at && o.ok);
    // From the fault, and from the first refused write: a planned switchover does its work
    // (a checkpoint, the standby catching up) before any write is refused.
    return {
      seconds: (back.at - since) / 1000,
      refusedFor: (back.at - refused[0].at) / 1000,
      refused: refused.length,
    };
  };
  const stop = async () => {
    running = false;
    await done;
    return outcomes;
  };
  return { outage, stop };
}

async function measure(s, faults) {
  const dir = tempDir('roster-bench-failover-');
  const c = cluster(dir, s);
  const data = tempDir('roster-bench-failover-data-');
  const served = await serve(data, undefined, ['--database', c.url]);
  const w = writer(served.origin, served.token);
  const figures = {};
  try {
    await healthy(c);
    for (const [name, fault] of Object.entries(faults)) {
      const times = [];
      for (let round = 0; round < ROUNDS; round++) {
        const leader = (await c.members()).find((m) => m.role === 'leader');
        const pid = c.postmasterPid(leader.name);
        const t = Date.now();
        await fault(c, leader);
        // Settled: a new leader for a lost node or a switchover, a new postmaster in place.
        await until(async () => {
          const now = (await c.members()).find((m) => m.role === 'leader');
          if (name === 'postmaster') return now && c.postmasterPid(leader.name) !== pid;
          return now && now.name !== leader.name;
        }, 180_000);
        times.push(await w.outage(t));
        if (name === 'node') c.restartNode(leader.name);
        await healthy(c);
      }
      figures[name] = times;
    }
  } finally {
    const outcomes = await w.stop();
    figures.statuses = [...new Set(outcomes.filter((o) => !o.ok).map((o) => o.status))];
    await served.stop();
    c.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
  return figures;
}

export async function run() {
  heading('PostgreSQL failover: seconds from the fault until writes succeed again (issue 45)');
  const tools = ['patroni', 'etcd', 'haproxy'].every((t) =>
    ['/usr/bin', '/usr/sbin'].some((d) => existsSync(join(d, t))),
  );
  if (!tools) {
    line('skipped', 'apt-get install patroni etcd-server etcd-client haproxy postgresql');
    return;
  }
  const report = (label, xs) => {
    const s = xs.map((x) => x.seconds);
    const r = xs.map((x) => x.refusedFor);
    const n = xs.map((x) => x.refused);
    line(
      label,
      `${fmt(median(s), 2)} s from the fault, ${fmt(median(r), 2)} s refusing (medians; ${n.join(', ')} writes refused)`,
    );
  };
  // BENCH_FAILOVER_DEFAULTS=0 leaves out Patroni's defaults (three 30 s failovers).
  const settings = process.env.BENCH_FAILOVER_DEFAULTS === '0' ? SETTINGS.slice(0, 1) : SETTINGS;
  for (const s of settings) {
    const faults = { node: (c, leader) => c.killNode(leader.name) };
    if (s === SETTINGS[0]) {
      faults.postmaster = (c, leader) => c.killPostmaster(leader.name);
      faults.switchover = async (c, leader) => {
        const to = (await c.members()).find((m) => m.role === 'sync_standby');
        const api = c.apis[Number(leader.name.replace('pg', '')) - 1];
        await fetch(`${api}/switchover`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ leader: leader.name, candidate: to.name }),
        });
      };
    }
    const f = await measure(s, faults);
    line(s.label, '');
    report('  node lost (Patroni + postmaster SIGKILL)', f.node);
    if (f.postmaster) report('  postmaster killed (restarted in place)', f.postmaster);
    if (f.switchover) report('  planned switchover', f.switchover);
    line('  statuses of refused writes', f.statuses.join(', ') || 'none');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
