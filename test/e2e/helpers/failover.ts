/**
 * The Patroni cluster of scripts/failover-test-server.sh, driven as an operator would: who
 * leads, a node lost (its Patroni and its PostgreSQL, SIGKILL), a postmaster killed alone
 * (Patroni restarts it in place), a node brought back, a planned switchover through Patroni's
 * REST API, and a Patroni lost while its PostgreSQL stays up (the split-brain case).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { engineAvailable } from '../../helpers/engine.js';
import { eventually } from '../../helpers/eventually.js';

const SCRIPT = join(import.meta.dirname, '..', '..', '..', 'scripts', 'failover-test-server.sh');
const onPath = (tool: string) =>
  ['/usr/bin', '/usr/sbin', '/usr/local/bin'].some((d) => existsSync(join(d, tool)));
const pgBin = () =>
  existsSync('/usr/lib/postgresql') && execFileSync('ls', ['/usr/lib/postgresql']).length > 0;

export const hasFailoverCluster = engineAvailable(
  'the PostgreSQL failover tests',
  ['patroni', 'etcd', 'haproxy', 'curl'].every(onPath) && pgBin(),
  'install patroni, etcd-server, etcd-client, haproxy and postgresql (apt-get install …)',
);

export interface Member {
  name: string;
  role: 'leader' | 'sync_standby' | 'replica' | string;
  state: string;
  port: number;
}

/** Patroni's timing for the tests: a lost leader's key expires after `ttl` seconds. */
export interface Timing {
  ttl: number;
  loopWait: number;
  retryTimeout: number;
}

/**
 * The cluster's ports start at `base` (see the script): below Linux's ephemeral range (32768 and
 * up), where no other test's free port or outgoing connection can take one of them meanwhile.
 */
export const clusterBase = () => 21_000 + (process.pid % 150) * 40;

export async function startCluster(dir: string, base: number, timing: Timing) {
  let out: string;
  try {
    out = execFileSync(SCRIPT, ['start', dir, String(base)], {
      env: {
        ...process.env,
        ROSTER_FAILOVER_TTL: String(timing.ttl),
        ROSTER_FAILOVER_LOOP_WAIT: String(timing.loopWait),
        ROSTER_FAILOVER_RETRY_TIMEOUT: String(timing.retryTimeout),
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
  } catch (err) {
    // What failed to start, in the failure itself: the script's words and each daemon's last lines.
    const logs = ['etcd0', 'patroni-pg1', 'patroni-pg2', 'haproxy'].map((name) => {
      try {
        return `${name}: ${readFileSync(join(dir, 'log', `${name}.log`), 'utf8')
          .split('\n')
          .slice(-6)
          .join('\n')}`;
      } catch {
        return `${name}: no log`;
      }
    });
    const stderr = String((err as { stderr?: unknown }).stderr ?? '');
    // What did start must not outlive the test (no clean-up is registered for a cluster that
    // never came up).
    try {
      execFileSync(SCRIPT, ['stop', dir]);
    } catch {
      // nothing was running
    }
    throw new Error(`the failover cluster did not start: ${stderr}\n${logs.join('\n')}`);
  }
  const vars = Object.fromEntries(
    [...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]),
  );
  const apis = vars.ROSTER_FAILOVER_PATRONI!.split(',');
  const pid = (file: string) => Number(readFileSync(file, 'utf8').trim().split('\n')[0]);
  const kill = (file: string) => {
    try {
      process.kill(pid(file), 'SIGKILL');
    } catch {
      // gone already
    }
  };
  const node = (name: string) => Number(name.replace('pg', ''));
  const postmasterFile = (name: string) => join(dir, name, 'data', 'postmaster.pid');

  /** The members as any live Patroni sees them. */
  const members = async (): Promise<Member[]> => {
    for (const api of apis) {
      try {
        const res = await fetch(`${api}/cluster`, { signal: AbortSignal.timeout(1000) });
        const body = (await res.json()) as { members: Member[] };
        return body.members;
      } catch {
        // that node is down: ask the next
      }
    }
    return [];
  };
  const leader = async () => (await members()).find((m) => m.role === 'leader');

  return {
    /** The read-write URL through haproxy, always to the current primary. */
    url: vars.ROSTER_FAILOVER_DATABASE!,
    members,
    leader,
    /** A direct URL to one node, bypassing haproxy. */
    direct: (m: Member) => `postgres://postgres@127.0.0.1:${m.port}/postgres`,
    /** The node lost: its Patroni and its postmaster, both SIGKILL. */
    killNode(name: string) {
      kill(join(dir, 'run', `patroni-${name}.pid`));
      kill(postmasterFile(name));
    },
    /** Only the postmaster: Patroni sees it and restarts PostgreSQL on the same node. */
    killPostmaster(name: string) {
      kill(postmasterFile(name));
    },
    /** The node's running postmaster, from its pid file (undefined while there is none). */
    postmasterPid(name: string): number | undefined {
      try {
        return pid(postmasterFile(name));
      } catch {
        return undefined;
      }
    },
    /** Only Patroni: PostgreSQL keeps running, believing itself primary. */
    killPatroni(name: string) {
      kill(join(dir, 'run', `patroni-${name}.pid`));
    },
    /** The node's Patroni started again: it rejoins as a replica of whoever leads. */
    restartNode(name: string) {
      execFileSync(SCRIPT, ['node', dir, String(node(name))]);
    },
    /** A planned switchover, as `patronictl switchover` asks it. */
    async switchover(from: string, to: string) {
      const api = apis[node(from) - 1]!;
      const res = await fetch(`${api}/switchover`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ leader: from, candidate: to }),
      });
      if (res.status !== 200) throw new Error(`switchover: ${res.status} ${await res.text()}`);
    },
    /** Three members running again, one of them the leader with a synchronous standby. */
    async healthy(ms = 60_000) {
      await eventually(async () => {
        const m = await members();
        return (
          m.length === 3 &&
          m.every((x) => x.state === 'running' || x.state === 'streaming') &&
          m.some((x) => x.role === 'leader') &&
          m.some((x) => x.role === 'sync_standby')
        );
      }, ms);
    },
    stop() {
      execFileSync(SCRIPT, ['stop', dir]);
    },
  };
}

export type Cluster = Awaited<ReturnType<typeof startCluster>>;

/** One statement on one node directly (not through haproxy), for the split-brain check. */
export async function queryNode<R extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}
