// `roster users export` of a million users (issue 27): `npm run bench -- million-export`, on a
// store seeded by bench/seed.mjs (MILLION_DATA, and MILLION_DATABASE for PostgreSQL; use a copy:
// a bench token is written). The built CLI exports every status to a file and to a pipe; the
// figures are its peak RSS (the kernel's, through rssPreload), the server's (VmHWM of a serve
// that answers nothing else) and rows/s against reading the same rows straight from the store
// (the pages the server reads, 1,000 by cursor, in the same run). Then the plan of 100,000 new
// rows against those users (`users import --dry-run`): the CLI's peak RSS and time, with the
// snapshot of every known user it holds (the goal: under 300 MB). MILLION_PARTS=export
// or =plan runs one part. Figures only.
import { spawn } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIN,
  cpuMs,
  exec,
  fmt,
  heading,
  LAUNCHER,
  launcherEnv,
  line,
  peakRssMb,
  ROOT,
  spawnUntil,
  stop,
  tempDir,
  vm,
} from './lib.mjs';
import { prepare } from './million.bench.mjs';

const ALL = ['activated', 'pending', 'deactivated'];

/** Every user of the branch, by the store's cursor in pages of 1,000: rows and seconds. */
async function readStore(dataDir, database) {
  const { databaseTarget, openStore } = await import(`${ROOT}dist/store/open.js`);
  const store = await openStore({ dataDir, target: databaseTarget(database, dataDir) });
  try {
    const tenant = await store.tenants.byHost('*');
    const branch = await store.branches.byName(tenant.id, 'main');
    const started = performance.now();
    let rows = 0;
    let after;
    do {
      const page = await store.users.list({
        branchId: branch.id,
        statuses: ALL,
        sort: [
          { key: 'lastName', dir: 'ASC' },
          { key: 'firstName', dir: 'ASC' },
        ],
        limit: 1000,
        offset: 0,
        after,
      });
      rows += page.rows.length;
      after = page.next;
    } while (after);
    return { rows, seconds: (performance.now() - started) / 1000 };
  } finally {
    await store.close();
  }
}

/** The CLI's export to stdout, read from a pipe: lines, seconds, the CLI's peak RSS. */
function exportToPipe(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(LAUNCHER, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lines = 0;
    let err = '';
    child.stdout.on('data', (chunk) => {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`export exited ${code}: ${err.slice(-400)}`));
      else resolve({ lines, seconds: (performance.now() - t0) / 1000, err });
    });
  });
}

export async function run() {
  const dataDir = process.env.MILLION_DATA;
  const database = process.env.MILLION_DATABASE;
  const backend = database ? 'postgres' : 'sqlite';
  heading(`a million users: export and plan (${database ? 'PostgreSQL' : 'SQLite'})`);
  if (!dataDir || !existsSync(dataDir)) {
    console.log('  set MILLION_DATA to a copy of a data dir seeded by bench/seed.mjs');
    return;
  }
  const prep = await prepare(dataDir, database);
  line('users in the branch (every status)', fmt(prep.users, 0));

  const work = tempDir('roster-million-export-');
  // rssPreload's peak RSS line, and the CPU the CLI used (to say which side the time went to).
  const preload = join(work, 'usage.mjs');
  writeFileSync(
    preload,
    // VmHWM, not getrusage's maxRSS: a child's maxRSS also counts the bench process it was
    // forked from (see rssPreload in lib.mjs), and this bench has read a million users itself.
    "import { readFileSync, writeSync } from 'node:fs';\nprocess.on('exit', () => { const u = process.resourceUsage(); const hwm = /^VmHWM:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]; writeSync(2, '\\nmaxrss_kb=' + hwm + '\\ncpu_ms=' + Math.round((u.userCPUTime + u.systemCPUTime) / 1000) + '\\n'); });\n",
  );
  const cliCpu = (stderr) => Number(/cpu_ms=(\d+)/.exec(stderr)?.[1] ?? 0) / 1000;
  const { child, match } = await spawnUntil(
    [BIN, 'serve', '--port', '0', '--data', dataDir, ...(database ? ['--database', database] : [])],
    /listening on (http:\/\/\S+)\/api/,
    { ROSTER_CONFIG_DIR: work },
  );
  const origin = match[1];
  const env = {
    ROSTER_CONFIG_DIR: work,
    ROSTER_BASE_URL: `${origin}/api`,
    ROSTER_TOKEN: prep.token,
  };
  // The command as npm installs it (the launcher), on this node, with the preload.
  Object.assign(env, launcherEnv(preload));
  const args = ['users', 'export', '--status', 'all'];
  const json = (label, figures) => {
    if (process.env.BENCH_JSON)
      console.log(JSON.stringify({ bench: 'million-export', backend, label, ...figures }));
  };
  const parts = (process.env.MILLION_PARTS ?? 'export,plan').split(',');
  try {
    if (parts.includes('export')) await exports();
    if (parts.includes('plan')) await planOf100k();
  } finally {
    await stop(child);
  }

  async function planOf100k() {
    const rows = Number(process.env.MILLION_PLAN_ROWS ?? 100_000);
    const csv = join(work, 'new-users.csv');
    let text = 'externalId,email,firstName,lastName\n';
    for (let i = 0; i < rows; i++) text += `PLAN-${i},plan.${i}@example.com,Plan,Row ${i}\n`;
    writeFileSync(csv, text);
    const planArgs = ['users', 'import', csv, '--dry-run', '--no-send-mail', '-o', 'ndjson'];
    const run = await exec(LAUNCHER, planArgs, env);
    const peak = peakRssMb(run.err);
    line(
      `plan of ${fmt(rows, 0)} new rows (--dry-run): time, CLI CPU, CLI peak RSS`,
      `${fmt(run.seconds, 1)} s, ${fmt(cliCpu(run.err), 1)} s, ${fmt(peak ?? 0, 0)} MB`,
    );
    json('plan of new rows', {
      rows,
      known: prep.users,
      seconds: run.seconds,
      cliCpuSeconds: cliCpu(run.err),
      cliPeakRssMb: peak,
    });
  }

  async function exports() {
    const store = await readStore(dataDir, database);
    const storeRate = store.rows / store.seconds;
    line(
      'store: every user by cursor, pages of 1,000',
      `${fmt(store.rows, 0)} rows in ${fmt(store.seconds, 1)} s (${fmt(storeRate, 0)} rows/s)`,
    );
    const serverStart = vm(child.pid, 'VmRSS');
    const out = join(work, 'users.csv');
    let serverCpu = cpuMs(child.pid);
    const file = await exec(LAUNCHER, [...args, '--to', out], env);
    const fileServerCpu = (cpuMs(child.pid) - serverCpu) / 1000;
    serverCpu = cpuMs(child.pid);
    const rows = await countRows(out);
    const fileRate = rows / file.seconds;
    line(
      'export --to FILE: rows, time, against the store',
      `${fmt(rows, 0)} rows in ${fmt(file.seconds, 1)} s (${fmt(fileRate, 0)} rows/s, ${fmt(fileRate / storeRate, 2)}× the store)`,
    );
    line(
      'export --to FILE: CLI peak RSS; file size',
      `${fmt(peakRssMb(file.err) ?? 0, 0)} MB; ${fmt(statSync(out).size / 2 ** 20, 0)} MiB`,
    );
    line(
      'export --to FILE: CPU s, CLI / server',
      `${fmt(cliCpu(file.err), 1)} / ${fmt(fileServerCpu, 1)}`,
    );
    json('export to a file', {
      cliCpuSeconds: cliCpu(file.err),
      serverCpuSeconds: fileServerCpu,
      rows,
      seconds: file.seconds,
      rowsPerSecond: fileRate,
      storeRowsPerSecond: storeRate,
      cliPeakRssMb: peakRssMb(file.err),
    });
    const piped = await exportToPipe(args, env);
    const pipeServerCpu = (cpuMs(child.pid) - serverCpu) / 1000;
    const pipeRate = (piped.lines - 1) / piped.seconds;
    line(
      'export to stdout (a pipe): rows, time, CLI peak RSS',
      `${fmt(piped.lines - 1, 0)} rows in ${fmt(piped.seconds, 1)} s (${fmt(pipeRate, 0)} rows/s); ${fmt(peakRssMb(piped.err) ?? 0, 0)} MB`,
    );
    line(
      'export to stdout: CPU s, CLI / server',
      `${fmt(cliCpu(piped.err), 1)} / ${fmt(pipeServerCpu, 1)}`,
    );
    json('export to a pipe', {
      cliCpuSeconds: cliCpu(piped.err),
      serverCpuSeconds: pipeServerCpu,
      rows: piped.lines - 1,
      seconds: piped.seconds,
      rowsPerSecond: pipeRate,
      cliPeakRssMb: peakRssMb(piped.err),
    });
    const serverPeak = vm(child.pid, 'VmHWM');
    line('server RSS at start → peak (VmHWM)', `${fmt(serverStart, 0)} → ${fmt(serverPeak, 0)} MB`);
    json('server', { serverStartMb: serverStart, serverPeakMb: serverPeak });
  }
}

async function countRows(path) {
  const { createReadStream } = await import('node:fs');
  let n = 0;
  for await (const chunk of createReadStream(path)) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
  }
  return n - 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
