/**
 * `roster serve` replicas on one database (and, in the S3 project, one bucket) behind a real
 * haproxy that health-checks /readyz, as docs/serving.md "Running several replicas" configures it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { profileToken, spawnServe } from '../../helpers/e2e.js';
import { engineAvailable } from '../../helpers/engine.js';
import { eventually } from '../../helpers/eventually.js';
import { freePort } from '../../helpers/fake-server.js';

const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));
export const hasHaproxy = engineAvailable(
  'the haproxy replica tests',
  HAPROXY !== undefined,
  'install haproxy (apt-get install haproxy)',
);

export interface Replica {
  port: number;
  data: string;
  config: string;
  child?: Awaited<ReturnType<typeof spawnServe>>['child'];
  logs: string[];
}

interface Scratch {
  temp(prefix: string): string;
  defer(fn: () => unknown): void;
}

/**
 * `count` replicas on `database` (and `blobs`, when given), each with its own data dir and
 * config dir on a fixed port, so a restarted one comes back where haproxy expects it.
 */
export async function replicas(
  { temp, defer }: Scratch,
  opts: { count: number; database: string; blobs?: string; args?: string[] },
) {
  const list: Replica[] = [];
  for (let i = 0; i < opts.count; i++) {
    list.push({
      port: await freePort(),
      data: temp('roster-replica-data-'),
      config: temp('roster-replica-config-'),
      logs: [],
    });
  }
  const start = async (r: Replica, extra: string[] = []) => {
    const served = await spawnServe(r.data, r.config, [
      '--database',
      opts.database,
      ...(opts.blobs ? ['--blobs', opts.blobs] : []),
      '--port',
      String(r.port),
      ...(opts.args ?? []),
      ...extra,
    ]);
    r.child = served.child;
    r.logs = served.logs;
  };
  /** SIGTERM: readiness fails, the drain delay passes, in-flight requests finish. */
  const stop = async (r: Replica) => {
    r.child?.kill('SIGTERM');
    await r.child;
    r.child = undefined;
  };
  const kill = async (r: Replica) => {
    r.child?.kill('SIGKILL');
    await r.child;
    r.child = undefined;
  };
  for (const r of list) await start(r);
  // Cleanup, not a test of the drain: SIGTERM would wait out each replica's --drain-delay.
  defer(() => Promise.all(list.map(kill)));
  const token = list.map((r) => profileToken(r.config)).find(Boolean)!;
  return { list, start, stop, kill, token };
}

/** docs/serving.md's haproxy errorfile for 503, byte for byte. */
const UNAVAILABLE = [
  'HTTP/1.1 503 Service Unavailable',
  'Content-Type: application/json',
  'Retry-After: 1',
  'Cache-Control: no-store',
  'Connection: close',
  '',
  '{"identifier":50300,"statusCode":503,"message":"no replica is ready to answer (the database may be switching over); retry in a moment","type":"ServiceUnavailableException"}',
].join('\r\n');

/** haproxy in front of `ports`, checking /readyz every 200 ms; answers its URL and a probe. */
export async function balancer({ temp, defer }: Scratch, ports: number[]) {
  const front = await freePort();
  const statsPort = await freePort();
  const dir = temp('roster-haproxy-');
  const cfg = join(dir, 'haproxy.cfg');
  // What haproxy answers while no replica is ready (the database switching over): the service's
  // own 503, envelope and Retry-After, as docs/serving.md configures it.
  writeFileSync(join(dir, '503.http'), UNAVAILABLE);
  writeFileSync(
    cfg,
    `global
  maxconn 512
defaults
  mode http
  errorfile 503 ${join(dir, '503.http')}
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  timeout check 2s
  retries 3
  option redispatch
listen stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /stats
frontend fe
  bind 127.0.0.1:${front}
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  # Out after two failed checks (well within serve's drain delay); a single slow check on a
  # busy machine must not take the other replica out while one restarts.
  default-server inter 200ms fall 2 rise 2
${ports.map((p, i) => `  server r${i} 127.0.0.1:${p} check`).join('\n')}
`,
  );
  const haproxy: ChildProcess = spawn(HAPROXY!, ['-f', cfg, '-db'], { stdio: 'ignore' });
  defer(() => haproxy.kill('SIGTERM'));
  /** What haproxy thinks of each replica (its stats page as CSV): UP, DOWN, … */
  const states = async () => {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
    return csv
      .split('\n')
      .filter((l) => l.startsWith('replicas,r'))
      .map((l) => l.split(',')[17]);
  };
  // Not `every` over what it read alone: before haproxy listens the read fails, and every
  // replica of an empty list is UP.
  const allUp = async () => {
    const all = await states().catch(() => []);
    return all.length === ports.length && all.every((s) => s === 'UP');
  };
  await eventually(allUp, 10_000);
  return { url: `http://127.0.0.1:${front}`, allUp };
}
