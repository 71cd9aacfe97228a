/**
 * Two `roster serve` replicas on one PostgreSQL behind a real haproxy that health-checks
 * /readyz: a rolling restart of both under a steady mix of reads and writes fails no request.
 * Runs in the PostgreSQL project only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { spawnServe } from '../helpers/cli-server.js';
import { freshDatabase } from '../helpers/database.js';
import { engineAvailable } from '../helpers/engine.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';
import { requester, V3 } from '../helpers/server.js';

const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));
const hasHaproxy = engineAvailable(
  'the haproxy replica tests',
  HAPROXY !== undefined,
  'install haproxy (apt-get install haproxy)',
);

const { temp, defer, cleanup } = scratch();
afterAll(cleanup);

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const profileToken = (config: string): string | undefined =>
  JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')).profiles?.local?.token;

test.runIf(hasHaproxy)(
  'a rolling restart of both replicas under load fails no request',
  async () => {
    const db = await freshDatabase();
    defer(db.drop);
    const ports = [await freePort(), await freePort()];
    const front = await freePort();
    const statsPort = await freePort();
    const replicas = ports.map((port) => ({
      port,
      data: temp('roster-ha-data-'),
      config: temp('roster-ha-config-'),
      child: undefined as Awaited<ReturnType<typeof spawnServe>>['child'] | undefined,
    }));
    const start = async (r: (typeof replicas)[number]) => {
      const served = await spawnServe(r.data, r.config, [
        '--database',
        db.url,
        '--port',
        String(r.port),
        '--drain-delay',
        '2',
      ]);
      r.child = served.child;
    };
    const stop = async (r: (typeof replicas)[number]) => {
      r.child?.kill('SIGTERM');
      await r.child;
    };
    for (const r of replicas) await start(r);
    defer(() => Promise.all(replicas.map(stop)));
    const token = replicas.map((r) => profileToken(r.config)).find(Boolean)!;

    const cfg = join(temp('roster-ha-cfg-'), 'haproxy.cfg');
    writeFileSync(
      cfg,
      `global
  maxconn 512
defaults
  mode http
  timeout connect 1s
  timeout client 10s
  timeout server 10s
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
  # Out after two failed checks (well within serve's 1 s drain delay); a single slow check on a
  # busy machine must not take the other replica out while one restarts.
  default-server inter 200ms fall 2 rise 2
${ports.map((p, i) => `  server r${i} 127.0.0.1:${p} check`).join('\n')}
`,
    );
    const haproxy: ChildProcess = spawn(HAPROXY!, ['-f', cfg, '-db'], { stdio: 'ignore' });
    defer(() => haproxy.kill('SIGTERM'));
    const url = `http://127.0.0.1:${front}`;
    /** What haproxy thinks of each replica (its stats page as CSV): UP, DOWN, … */
    const states = async () => {
      const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
      return csv
        .split('\n')
        .filter((l) => l.startsWith('replicas,r'))
        .map((l) => l.split(',')[17]);
    };
    const allUp = async () => (await states().catch(() => [])).join() === 'UP,UP';
    const req = requester(url, token);
    await eventually(
      async () => (await req('GET', '/readyz').catch(() => undefined))?.status === 200,
      10_000,
    );

    const seed = await req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ externalId: 'steady', email: 'steady@example.com', sendMail: false }),
    });
    expect(seed.status).toBe(201);

    // A steady mix of reads and writes until told to stop.
    const failures: string[] = [];
    let requests = 0;
    let running = true;
    const worker = async (w: number) => {
      for (let i = 0; running; i++) {
        const kind = i % 3;
        try {
          const r =
            kind === 0
              ? await req('GET', '/api/users/steady', { headers: { accept: V3 } })
              : kind === 1
                ? await req('POST', '/api/users', {
                    headers: { 'content-type': V3, accept: V3 },
                    body: JSON.stringify({ email: `w${w}-${i}@example.com`, sendMail: false }),
                  })
                : await req('PUT', '/api/users/steady', {
                    headers: { 'content-type': V3, accept: V3 },
                    body: JSON.stringify({ profile: { position: `p${w}-${i}` } }),
                  });
          requests++;
          if (r.status >= 300)
            failures.push(`${['GET', 'POST', 'PUT'][kind]} ${r.status} ${r.text.slice(0, 120)}`);
        } catch (err) {
          failures.push(`${['GET', 'POST', 'PUT'][kind]} ${(err as Error).message}`);
        }
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)));

    await new Promise((r) => setTimeout(r, 500));
    for (const r of replicas) {
      await stop(r);
      await start(r);
      // Back in the pool (its health check passed twice) before the next one goes.
      await eventually(allUp, 10_000);
    }
    await new Promise((r) => setTimeout(r, 500));
    running = false;
    await load;

    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(100);
  },
  120_000,
);
