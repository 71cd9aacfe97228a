// Shared bench helpers: spawn `roster serve`, a keep-alive load generator, figures.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Pool } from 'undici';

export const ROOT = new URL('..', import.meta.url).pathname;
/** BENCH_ROSTER_BIN: another build's entry point (a before/after comparison in one run). */
export const BIN = process.env.BENCH_ROSTER_BIN ?? join(ROOT, 'bin', 'roster.js');
/** The command as npm installs it: bin/roster, the launcher (its malloc arena limit). */
export const LAUNCHER = join(ROOT, 'bin', 'roster');

/**
 * The environment that runs LAUNCHER on this bench's node with a preload (rssPreload's): the
 * launcher starts the `node` first in PATH, and takes no node flags but NODE_OPTIONS.
 */
export const launcherEnv = (preload) => ({
  NODE_OPTIONS: `--import ${preload}`,
  PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
});

export const tempDir = (prefix) => mkdtempSync(join(tmpdir(), prefix));

/** Starts a node script and waits until it prints a line matching `ready` on stderr/stdout. */
export function spawnUntil(args, ready, env = {}) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk) => {
      out += chunk;
      const m = ready.exec(out);
      if (m) resolve({ child, match: m });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${out}`)));
  });
}

/**
 * A module that, given to a Node process with `--import`, prints its peak RSS on stderr as it
 * exits (`maxrss_kb=N`): the kernel's own peak, native memory (sharp, libvips) included, where
 * polling /proc would miss a short peak. Read back with `peakRssMb`.
 * On Linux it is VmHWM (/proc/self/status), not getrusage's maxRSS: a spawned child's maxRSS
 * also counts the pages of the parent it was forked from (Linux keeps the peak of the memory it
 * replaced at exec), so a bench process holding 400 MB made every CLI it spawned "peak" at 400.
 */
export function rssPreload(dir) {
  const path = join(dir, 'rss.mjs');
  writeFileSync(
    path,
    `import { readFileSync, writeSync } from 'node:fs';
const hwm = () => /^VmHWM:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
process.on('exit', () => {
  let kb;
  try { kb = hwm(); } catch {}
  writeSync(2, '\\nmaxrss_kb=' + (kb ?? process.resourceUsage().maxRSS) + '\\n');
});
`,
  );
  return path;
}

/** The peak RSS in MB that an `rssPreload`ed process printed, or undefined. */
export function peakRssMb(stderr) {
  const kb = /maxrss_kb=(\d+)/.exec(stderr)?.[1];
  return kb === undefined ? undefined : Number(kb) / 1024;
}

/** Runs a command to completion: its stdout, stderr and wall time; rejects on a non-zero exit. */
export function exec(cmd, args, env = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err}`));
      resolve({ out, err, seconds: (performance.now() - t0) / 1000 });
    });
  });
}

/**
 * `roster serve` on a data dir; resolves with its origin, its admin token and a stop(). `bin`
 * serves another build (a baseline checkout's bin/roster.js).
 */
export async function serve(
  dataDir,
  configDir = tempDir('roster-bench-config-'),
  extra = [],
  bin = BIN,
  { replica = false } = {},
) {
  const { child, match } = await spawnUntil(
    [
      ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []),
      bin,
      'serve',
      '--port',
      '0',
      '--data',
      dataDir,
      ...extra,
    ],
    /listening on (http:\/\/\S+)\/api/,
    { ROSTER_CONFIG_DIR: configDir },
  );
  // Only the serve that bootstraps a database saves a profile: a second replica of one
  // (`replica`) has none, and its callers use the first's token.
  const config = join(configDir, 'config.json');
  const profiles = () => JSON.parse(readFileSync(config, 'utf8')).profiles;
  const token = replica
    ? existsSync(config)
      ? profiles()?.local?.token
      : undefined
    : profiles().local.token;
  return { child, origin: match[1], token, pid: child.pid, stop: () => stop(child) };
}

export function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** CPU time (user + system) a process has used so far, in ms; Linux only (0 elsewhere). */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks at 100 Hz
  } catch {
    return 0;
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/**
 * Closed-loop keep-alive load: `connections` loops each sending the next request as soon as the
 * previous answered, for `durationMs`. `request(i)` returns undici request options.
 */
export async function load({ origin, connections, durationMs, request, expectStatus = 200, pid }) {
  const cpuBefore = pid ? cpuMs(pid) : 0;
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const latencies = [];
  let errors = 0;
  let n = 0;
  const end = performance.now() + durationMs;
  const loop = async () => {
    while (performance.now() < end) {
      const i = n++;
      const t0 = performance.now();
      try {
        const res = await pool.request(request(i));
        await res.body.dump();
        if (res.statusCode !== expectStatus) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    errors,
    // The server's CPU per request: steadier than req/s on a shared machine.
    cpuUsPerRequest: pid ? ((cpuMs(pid) - cpuBefore) * 1000) / latencies.length : undefined,
  };
}

export const fmt = (n, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
export const line = (label, value) => console.log(`  ${label.padEnd(52)} ${value}`);
export const heading = (title) => console.log(`\n${title}`);

/** A fresh PostgreSQL database for the bench, from ROSTER_BENCH_DATABASE (a server URL). */
export async function benchDatabase() {
  const server = process.env.ROSTER_BENCH_DATABASE ?? process.env.ROSTER_TEST_DATABASE;
  if (!server) return undefined;
  const { default: pg } = await import('pg');
  const name = `roster_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A /proc/<pid>/status figure (VmRSS, VmHWM) in MB. */
export const vm = (pid, key) =>
  Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) /
  1024;

/** Polls a process's VmRSS every 20 ms until stopped; stop() gives the peak seen. */
export function watchRss(pid) {
  let peak = vm(pid, 'VmRSS');
  const timer = setInterval(() => {
    peak = Math.max(peak, vm(pid, 'VmRSS'));
  }, 20);
  return () => {
    clearInterval(timer);
    return Math.max(peak, vm(pid, 'VmRSS'));
  };
}

/** A sparse file of `bytes`: reads cost nothing, the receiver still handles every byte. */
export const sparse = (path, bytes) => {
  writeFileSync(path, '');
  truncateSync(path, bytes);
};

/** A port free on 127.0.0.1 right now. */
export const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
