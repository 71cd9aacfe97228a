// `users import` bench (issue 5): 10,000 new rows vs the server's raw POST capacity at the same
// concurrency (a plain keep-alive client, same run), a re-run of the same file (all unchanged),
// and the CLI's peak RSS on a 100,000-row file. Standalone: `node bench/import.bench.mjs`
// (after `npm run build`). BENCH_IMPORT_ROWS / BENCH_IMPORT_BIG / BENCH_CONCURRENCY / BENCH_PLAN_ROWS
// scale it; BENCH_PLAN_RUNS (5) plans are run and their median reported.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import {
  BIN,
  benchDatabase,
  exec,
  fmt,
  heading,
  line,
  peakRssMb,
  rssPreload,
  serve,
  tempDir,
} from './lib.mjs';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);
const BIG = Number(process.env.BENCH_IMPORT_BIG ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PLAN_ROWS = Number(process.env.BENCH_PLAN_ROWS ?? 20_000);
const PLAN_RUNS = Number(process.env.BENCH_PLAN_RUNS ?? 5);
const V3 = 'application/vnd.service.accessors.user.v3+json';

const DEPTS = ['Sales', 'Engineering', 'Marketing', 'Finance', 'Support', 'Legal'];
const CITIES = ['Berlin', 'Hamburg', 'München', 'Köln', 'Frankfurt', 'Leipzig'];

function csv(prefix, n) {
  const rows = ['externalId,email,firstName,lastName,department,location,locale,role'];
  for (let i = 0; i < n; i++) {
    rows.push(
      `${prefix}-${i},${prefix.toLowerCase()}.${i}@example.com,First${i},"Last, ${i}",${DEPTS[i % 6]},${CITIES[i % 6]},de_DE,reader`,
    );
  }
  return `${rows.join('\n')}\n`;
}

/** Runs the CLI; resolves with wall time, the JSON summary and the peak RSS. */
async function cli(args, env, preload) {
  const { out, err, seconds } = await exec(
    process.execPath,
    ['--import', preload, BIN, ...args],
    env,
  );
  const rss = peakRssMb(err) ?? 0;
  return { seconds, summary: JSON.parse(out), rssMb: rss };
}

/** `n` POST /users from a plain keep-alive client at `concurrency`: users/s. */
async function rawPosts(origin, token, n, concurrency) {
  const pool = new Pool(origin, { connections: concurrency });
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  const loop = async () => {
    while (next < n) {
      const i = next++;
      const res = await pool.request({
        path: '/api/users',
        method: 'POST',
        headers: { authorization: `Basic ${token}`, 'content-type': V3, accept: V3 },
        body: JSON.stringify({
          externalId: `RAW-${i}`,
          email: `raw.${i}@example.com`,
          profile: {
            firstName: `First${i}`,
            lastName: `Last, ${i}`,
            department: DEPTS[i % 6],
            location: CITIES[i % 6],
          },
          config: { locale: 'de_DE' },
          role: 'reader',
          sendMail: false,
        }),
      });
      await res.body.dump();
      if (res.statusCode !== 201) errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const seconds = (performance.now() - t0) / 1000;
  await pool.close();
  return { rate: n / seconds, errors };
}

export async function run() {
  const only = process.env.BENCH_BACKEND;
  if (only !== 'postgres') await runOn('SQLite');
  if (only === 'sqlite') return;
  const db = await benchDatabase();
  if (!db) return;
  try {
    await runOn('PostgreSQL', db.url);
  } finally {
    await db.drop();
  }
}

/** Raw POST capacity and a 10,000-row import on one backend; memory on SQLite only. */
async function runOn(backend, database) {
  heading(
    `users import on ${backend} (${fmt(ROWS, 0)} rows at --concurrency ${CONCURRENCY}${database ? '' : `; ${fmt(BIG, 0)}-row file for memory`})`,
  );
  const dir = tempDir('roster-bench-import-');
  const dataDir = join(dir, 'data');
  const configDir = join(dir, 'config');
  const server = await serve(dataDir, configDir, database ? ['--database', database] : []);
  const preload = rssPreload(dir);
  try {
    // Raw capacity in a branch of its own, so the import's snapshot does not include these users.
    const admin = (...a) =>
      execFileSync(process.execPath, [BIN, ...a, '--data', dataDir], {
        env: {
          ...process.env,
          ROSTER_CONFIG_DIR: configDir,
          ...(database ? { ROSTER_DATABASE_URL: database } : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }).toString();
    admin('branches', 'add', 'raw');
    const rawToken = JSON.parse(admin('tokens', 'create', '--branch', 'raw', '--json')).token;
    const raw = await rawPosts(server.origin, rawToken, ROWS, CONCURRENCY);
    line(
      `raw POST /users, keep-alive, ${CONCURRENCY} at a time`,
      `${fmt(raw.rate, 0)} users/s${raw.errors ? ` (${raw.errors} errors)` : ''}`,
    );

    const env = { ROSTER_CONFIG_DIR: configDir, NO_COLOR: '1' };
    const file = join(dir, 'people.csv');
    writeFileSync(file, csv('IMP', ROWS));
    const args = [
      'users',
      'import',
      file,
      '--no-send-mail',
      '--concurrency',
      String(CONCURRENCY),
      '-o',
      'json',
    ];
    const first = await cli(args, env, preload);
    const rate = ROWS / first.seconds;
    line(
      `import ${fmt(ROWS, 0)} new rows (whole CLI run)`,
      `${fmt(first.seconds, 2)} s, ${fmt(rate, 0)} users/s, created ${first.summary.created}`,
    );
    line('ratio to raw POST capacity (goal >= 0.8)', `${fmt(rate / raw.rate, 2)}x`);
    const again = await cli(args, env, preload);
    line(
      `re-run, all unchanged (goal < ${fmt((ROWS / 10_000) * 3, 0)} s)`,
      `${fmt(again.seconds, 2)} s, unchanged ${again.summary.unchanged}`,
    );

    // The plan against a branch of PLAN_ROWS users (its own, as #22 measures it: 20,000 rows
    // against 20,000 users): every key of every user is checked (the dry run's promise), so
    // this is its cost: the snapshot, both passes, the identity indexes.
    admin('branches', 'add', 'plan');
    const planToken = JSON.parse(admin('tokens', 'create', '--branch', 'plan', '--json')).token;
    const planEnv = { ...env, ROSTER_TOKEN: planToken };
    const plan = join(dir, 'plan.csv');
    writeFileSync(plan, csv('PLN', PLAN_ROWS));
    const planArgs = [
      'users',
      'import',
      plan,
      '--no-send-mail',
      '--concurrency',
      String(CONCURRENCY),
    ];
    await cli([...planArgs, '-o', 'json'], planEnv, preload);
    writeFileSync(plan, csv('PLN', PLAN_ROWS).replaceAll(',Sales,', ',Sales Ops,'));
    // PLAN_RUNS runs and their median: one run on a shared machine is one draw of its load.
    const dries = [];
    for (let i = 0; i < PLAN_RUNS; i++) {
      dries.push(await cli([...planArgs, '--dry-run', '-o', 'json'], planEnv, preload));
    }
    const seconds = dries.map((d) => d.seconds).sort((a, b) => a - b);
    const dry = dries[0];
    line(
      `plan ${fmt(PLAN_ROWS, 0)} rows against ${fmt(PLAN_ROWS, 0)} users (goal < 2 s)`,
      `${fmt(seconds[Math.floor(PLAN_RUNS / 2)], 2)} s median of ${PLAN_RUNS} whole CLI runs (${seconds.map((x) => fmt(x, 2)).join(' ')}), peak RSS ${fmt(Math.max(...dries.map((d) => d.rssMb)), 0)} MB, ${dry.summary.summary.updated} updates`,
    );
    if (database) return;

    const big = join(dir, 'big.csv');
    writeFileSync(big, csv('BIG', BIG));
    const bigArgs = [
      'users',
      'import',
      big,
      '--no-send-mail',
      '--concurrency',
      String(CONCURRENCY),
      '-o',
      'json',
    ];
    const planned = await cli([...bigArgs, '--dry-run'], env, preload);
    line(
      `${fmt(BIG, 0)}-row file, --dry-run: peak RSS (goal < 250 MB)`,
      `${fmt(planned.rssMb, 0)} MB, ${fmt(planned.seconds, 2)} s`,
    );
    const full = await cli(bigArgs, env, preload);
    line(
      `${fmt(BIG, 0)}-row file, import: peak RSS (goal < 250 MB)`,
      `${fmt(full.rssMb, 0)} MB, ${fmt(full.seconds, 1)} s (${fmt(BIG / full.seconds, 0)} users/s)`,
    );
    const bigAgain = await cli(bigArgs, env, preload);
    line(
      `${fmt(BIG, 0)}-row file, re-run (all unchanged): peak RSS`,
      `${fmt(bigAgain.rssMb, 0)} MB, ${fmt(bigAgain.seconds, 2)} s`,
    );
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
