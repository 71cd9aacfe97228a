// Events bench (issue 40): what the event log costs and how fast it answers.
//   npm run bench -- events
// - writes: POST and PUT rates with events against a base (BENCH_EVENTS_BASE: a built
//   checkout), in alternating rounds on the same machine in the same run, and a 5,000-row
//   import by each side's own CLI; without a base these are skipped with a line saying how.
//   Two bases answer two questions: the commit before the events work
//   (`bench/baseline.sh dfc1c76 DIR`: what writes cost now against then, with everything
//   merged since), and this commit without its event rows
//   (`bench/baseline.sh HEAD DIR bench/without-events.patch`: what the events alone cost);
// - follow: a follower passing `next` with `wait=` sees each committed PUT how late (p50/p99),
//   on SQLite and, on PostgreSQL, from another replica than the writer's;
// - page: GET /api/events first, filtered (target=, type=, since=) pages with 1M events;
// - prune: PUT p99 while the pruner deletes those 1M once they are past retention, against
//   the same load after it is done.
// PostgreSQL parts run when ROSTER_BENCH_DATABASE (or ROSTER_TEST_DATABASE) names a server.
// BENCH_PARTS=writes,follow,page,prune picks parts; BENCH_EVENTS=1000000 scales the log;
// BENCH_PRUNE_BASE=DIR (a built checkout) prunes a copy of the same log with it first (SQLite);
// the log is then made, and its pages timed, by the base, so that both builds can open it.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import {
  BIN,
  benchDatabase,
  exec,
  fmt,
  heading,
  line,
  load,
  ROOT,
  serve,
  stop,
  tempDir,
} from './lib.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 5_000);
const FOLLOW_WRITES = Number(process.env.BENCH_FOLLOW_WRITES ?? 300);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'writes,follow,page,prune').split(','));
const BASE = process.env.BENCH_EVENTS_BASE;
// A built checkout (bin/ and dist/) to prune the same log with first, on SQLite: before → after.
const PRUNE_BASE = process.env.BENCH_PRUNE_BASE;
const V3 = 'application/vnd.service.accessors.user.v3+json';
// Targets the seeded events spread over; one in RARE is a user.deleted (a rare type's page).
const TARGETS = 10_000;
const RARE = 1_000;

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${fmt(x, 2)} ms`;

export async function run() {
  const only = process.env.BENCH_BACKEND;
  if (only !== 'postgres') await runOn('SQLite');
  if (only === 'sqlite') return;
  if (!(process.env.ROSTER_BENCH_DATABASE ?? process.env.ROSTER_TEST_DATABASE)) {
    line('PostgreSQL', 'skipped: set ROSTER_BENCH_DATABASE=postgres://… (a server URL)');
    return;
  }
  await runOn('PostgreSQL', true);
}

async function runOn(backend, postgres = false) {
  if (PARTS.has('writes')) await writes(backend, postgres);
  if (PARTS.has('follow')) await follow(backend, postgres);
  if (PARTS.has('page') || PARTS.has('prune')) await bigLog(backend, postgres);
}

/** A serve of `bin` on a fresh data dir (and, for PostgreSQL, a fresh database). */
async function fresh(bin, postgres, extra = []) {
  const dir = tempDir('roster-bench-events-');
  const db = postgres ? await benchDatabase() : undefined;
  const server = await serve(
    join(dir, 'data'),
    join(dir, 'config'),
    [...(db ? ['--database', db.url] : []), ...extra],
    bin,
  );
  return {
    ...server,
    dir,
    db,
    async close() {
      await server.stop();
      await db?.drop();
    },
  };
}

const authOf = (server) => ({ authorization: `Basic ${server.token}` });

/** POST and PUT with events (this checkout) against the commit before them (BASE). */
async function writes(backend, postgres) {
  heading(`events: writes with events against the commit before them, on ${backend}`);
  if (!BASE || !existsSync(join(BASE, 'dist'))) {
    line(
      'skipped',
      'set BENCH_EVENTS_BASE=DIR after `bench/baseline.sh dfc1c76 DIR` (the commit before the events work) or `bench/baseline.sh HEAD DIR bench/without-events.patch` (this commit without event rows)',
    );
    return;
  }
  const git = (...args) => execFileSync('git', ['-C', BASE, ...args], { encoding: 'utf8' }).trim();
  const patched = git('status', '--porcelain', '--untracked-files=no') !== '';
  const baseName = `base ${git('log', '-1', '--format=%h')}${patched ? ' patched' : ''}`;
  line(
    'base',
    `${BASE}: ${baseName}${patched ? ` (${git('diff', '--stat').split('\n').at(-1)})` : ''}`,
  );
  const sides = {
    before: await fresh(join(BASE, 'bin', 'roster.js'), postgres),
    events: await fresh(BIN, postgres),
  };
  try {
    const created = { before: 0, events: 0 };
    const headersOf = (side) => ({ ...authOf(sides[side]), accept: V3, 'content-type': V3 });
    const create = (side) => () => {
      const n = created[side]++;
      return {
        path: '/api/users',
        method: 'POST',
        headers: headersOf(side),
        body: JSON.stringify({
          email: `u${n}@bench.example`,
          externalId: `u-${n}`,
          sendMail: false,
          profile: { firstName: 'New', lastName: `User ${n}` },
        }),
      };
    };
    // Each PUT changes the field (an unchanged PUT writes no event, so would measure nothing).
    const update = (side) => (i) => ({
      path: `/api/users/u-${(i * 7919) % Math.max(1, created[side])}`,
      method: 'PUT',
      headers: headersOf(side),
      body: JSON.stringify({ profile: { position: `Role ${side} ${i} ${Date.now()}` } }),
    });
    for (const [label, expectStatus, requestOf] of [
      ['POST /api/users', 201, create],
      ['PUT /api/users/{externalId} (one field)', 200, update],
    ]) {
      const runs = { before: [], events: [] };
      const loadOf = (side, seconds) =>
        load({
          origin: sides[side].origin,
          pid: sides[side].pid,
          connections: 16,
          durationMs: seconds * 1000,
          expectStatus,
          request: requestOf(side),
        });
      if (WARMUP > 0) for (const side of ['before', 'events']) await loadOf(side, WARMUP);
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 ? ['events', 'before'] : ['before', 'events']) {
          runs[side].push(await loadOf(side, SECONDS));
        }
      }
      for (const side of ['before', 'events']) {
        const rs = runs[side];
        line(
          `${label}, ${side === 'before' ? baseName : 'this checkout'}`,
          `${fmt(median(rs.map((r) => r.rps)), 0)}/s  p99 ${ms(median(rs.map((r) => r.p99)))}  errors ${rs.reduce((n, r) => n + r.errors, 0)}`,
        );
      }
      const ratios = runs.events.map((r, i) => r.rps / runs.before[i].rps);
      line(
        `${label}: this / base, req/s (goal >= 0.9)`,
        `${fmt(median(ratios), 2)} (rounds ${ratios.map((x) => fmt(x, 2)).join(' ')})`,
      );
    }

    // The import, by each side's own CLI against its own server: rows/s of a whole run.
    const rates = { before: [], events: [] };
    for (let round = 0; round < Math.max(2, ROUNDS - 1); round++) {
      for (const side of round % 2 ? ['events', 'before'] : ['before', 'events']) {
        rates[side].push(await importRun(sides[side], side, round));
      }
    }
    for (const side of ['before', 'events']) {
      line(
        `import ${fmt(IMPORT_ROWS, 0)} new rows, ${side === 'before' ? baseName : 'this checkout'}`,
        `${fmt(median(rates[side]), 0)} rows/s (runs ${rates[side].map((r) => fmt(r, 0)).join(' ')})`,
      );
    }
    line(
      'import: this / base, rows/s (goal >= 0.9)',
      fmt(median(rates.events) / median(rates.before), 2),
    );
  } finally {
    await Promise.all(Object.values(sides).map((s) => s.close()));
  }
}

async function importRun(server, side, round) {
  const { writeFileSync } = await import('node:fs');
  const file = join(server.dir, `people-${round}.csv`);
  const rows = ['externalId,email,firstName,lastName,department'];
  for (let i = 0; i < IMPORT_ROWS; i++) {
    rows.push(`imp${round}-${i},imp${round}.${i}@example.com,First${i},Last ${i},Sales`);
  }
  writeFileSync(file, `${rows.join('\n')}\n`);
  const bin = side === 'before' ? join(BASE, 'bin', 'roster.js') : BIN;
  const { seconds } = await exec(
    process.execPath,
    [bin, 'users', 'import', file, '--no-send-mail', '--concurrency', '8', '-o', 'json'],
    { ROSTER_CONFIG_DIR: join(server.dir, 'config'), NO_COLOR: '1' },
  );
  return IMPORT_ROWS / seconds;
}

/**
 * How late a follower sees a change: a writer PUTs one change every 50 ms; a follower long-polls
 * with `wait=` and the `next` it was given. Lateness is from the writer's answer (the change was
 * committed by then) to the page that carries the event. On PostgreSQL the follower asks another
 * replica than the writer, which learns of the change by its 250 ms re-read.
 */
async function follow(backend, postgres) {
  heading(`events: a follower's lateness, ${FOLLOW_WRITES} PUTs 50 ms apart, on ${backend}`);
  const writer = await fresh(BIN, postgres);
  let reader = writer;
  try {
    if (postgres) {
      reader = {
        ...(await serve(
          join(writer.dir, 'data2'),
          join(writer.dir, 'config2'),
          ['--database', writer.db.url],
          undefined,
          { replica: true },
        )),
      };
    }
    const headers = { ...authOf(writer), accept: V3, 'content-type': V3 };
    const w = new Pool(writer.origin, { connections: 1 });
    const r = new Pool(reader.origin, { connections: 1 });
    const res = await w.request({
      path: '/api/users',
      method: 'POST',
      headers,
      body: JSON.stringify({ email: 'f@bench.example', externalId: 'f-1', sendMail: false }),
    });
    await res.body.dump();
    // Start from the end of the log: one page from the beginning (it is short here).
    let next = await endCursor(r, authOf(writer));
    const committed = new Map();
    const late = [];
    let done = false;
    const follower = (async () => {
      while (!done || late.length < committed.size) {
        const page = await r.request({
          path: `/api/events?wait=5&limit=1000${next ? `&after=${encodeURIComponent(next)}` : ''}`,
          method: 'GET',
          headers: authOf(writer),
        });
        const body = await page.body.json();
        if (page.statusCode !== 200) throw new Error(`GET /api/events: ${JSON.stringify(body)}`);
        const seen = performance.now();
        next = body.next;
        for (const e of body.data) {
          const at = committed.get(e.changes?.['profile.position']?.to);
          if (at !== undefined) late.push(Math.max(0, seen - at));
        }
        if (done && body.data.length === 0) break;
      }
    })();
    for (let i = 0; i < FOLLOW_WRITES; i++) {
      const t0 = performance.now();
      const put = await w.request({
        path: '/api/users/f-1',
        method: 'PUT',
        headers,
        body: JSON.stringify({ profile: { position: `P${i}` } }),
      });
      await put.body.dump();
      committed.set(`P${i}`, performance.now());
      const pause = 50 - (performance.now() - t0);
      if (pause > 0) await new Promise((ok) => setTimeout(ok, pause));
    }
    done = true;
    await follower;
    await w.close();
    await r.close();
    late.sort((a, b) => a - b);
    line(
      `follower ${postgres ? 'on the other replica' : 'on the same serve'} (goal p99 < 1 s)`,
      `p50 ${ms(quantile(late, 0.5))}  p99 ${ms(quantile(late, 0.99))}  max ${ms(late.at(-1))}  seen ${late.length}/${FOLLOW_WRITES}`,
    );
  } finally {
    if (reader !== writer) await reader.stop();
    await writer.close();
  }
}

/** The `next` of the log's last page, by paging from the start (the log is short here). */
async function endCursor(pool, headers) {
  let next;
  for (;;) {
    const res = await pool.request({
      path: `/api/events?limit=1000${next ? `&after=${encodeURIComponent(next)}` : ''}`,
      method: 'GET',
      headers,
    });
    const body = await res.body.json();
    next = body.next;
    if (body.data.length < 1000) return next;
  }
}

/** Pages of a log of EVENTS events, then pruning them all while PUTs run. */
async function bigLog(backend, postgres) {
  heading(`events: ${fmt(EVENTS, 0)} events in the log, on ${backend}`);
  const dir = tempDir('roster-bench-events-');
  const dataDir = join(dir, 'data');
  const configDir = join(dir, 'config');
  const db = postgres ? await benchDatabase() : undefined;
  const extra = db ? ['--database', db.url] : [];
  // With a base to prune with, the log is made (and paged) by the base, so that both builds can
  // open it: this checkout's serve migrates its copy at start, if its schema is newer.
  const logBin = PRUNE_BASE && !postgres ? join(PRUNE_BASE, 'bin', 'roster.js') : BIN;
  let server = await serve(dataDir, configDir, extra, logBin);
  const sql = await connect(dataDir, db);
  try {
    const res = await fetch(`${server.origin}/api/users`, {
      method: 'POST',
      headers: { ...authOf(server), accept: V3, 'content-type': V3 },
      body: JSON.stringify({ email: 'p@bench.example', externalId: 'p-1', sendMail: false }),
    });
    if (res.status !== 201) throw new Error(`POST /api/users: ${res.status}`);
    await stop(server.child);
    const t0 = performance.now();
    await sql.seed(EVENTS);
    line('seeding (straight into the table)', `${fmt((performance.now() - t0) / 1000, 1)} s`);
    server = await serve(dataDir, configDir, [...extra, '--events-retention', '36500'], logBin);
    if (PARTS.has('page')) await pages(server);
    await stop(server.child);
    if (!PARTS.has('prune')) return;
    await sql.age();
    if (PRUNE_BASE && !postgres) {
      // The same aged log for each build: a copy of the data dir per side, the base first.
      await sql.checkpoint();
      for (const [side, bin] of [
        ['before (BENCH_PRUNE_BASE)', join(PRUNE_BASE, 'bin', 'roster.js')],
        ['after (this checkout)', BIN],
      ]) {
        const copy = join(tempDir('roster-bench-prune-'), 'data');
        cpSync(dataDir, copy, { recursive: true });
        const copySql = await connect(copy);
        const copyServer = await serve(copy, configDir, extra, bin);
        try {
          line(side, '');
          await prune(copyServer, copySql);
        } finally {
          await stop(copyServer.child);
          await copySql.close();
          rmSync(copy, { recursive: true, force: true });
        }
      }
      return;
    }
    server = await serve(dataDir, configDir, extra);
    await prune(server, sql);
  } finally {
    await stop(server.child);
    await sql.close();
    await db?.drop();
  }
}

async function pages(server) {
  const headers = authOf(server);
  const mid = new Date(Date.now() - (EVENTS / 2) * 1000).toISOString();
  const cases = [
    ['first page (limit 100)', '/api/events?limit=100'],
    ['target= one user (100 of its events)', '/api/events?limit=100&target=bench-target-4242'],
    [`type= a rare type (1 in ${RARE})`, '/api/events?limit=100&type=user.deleted'],
    ['type= a family (user.*)', '/api/events?limit=100&type=user.*'],
    ['since= the middle of the log', `/api/events?limit=100&since=${encodeURIComponent(mid)}`],
  ];
  for (const [label, path] of cases) {
    for (const connections of [1, 2]) {
      const r = await load({
        origin: server.origin,
        connections,
        durationMs: SECONDS * 1000,
        request: () => ({ path, method: 'GET', headers }),
      });
      line(
        `${label}, ${connections} in flight (goal p99 < 20 ms)`,
        `p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  ${fmt(r.rps, 0)}/s  errors ${r.errors}`,
      );
    }
  }
}

/**
 * PUT latency while the pruner deletes every seeded event (all past retention), against the
 * same load once it is done. Whether any is left is read on a connection of the bench's own.
 */
async function prune(server, sql) {
  const headers = { ...authOf(server), accept: V3, 'content-type': V3 };
  const pool = new Pool(server.origin, { connections: 4 });
  const samples = [];
  let prunedAt;
  let stopAt = Number.POSITIVE_INFINITY;
  const started = performance.now();
  const watch = (async () => {
    while (await sql.anyLeft()) await new Promise((ok) => setTimeout(ok, 250));
    prunedAt = performance.now();
    stopAt = prunedAt + SECONDS * 1000;
  })();
  let n = 0;
  const loop = async () => {
    while (performance.now() < stopAt) {
      const i = n++;
      const t0 = performance.now();
      const res = await pool.request({
        path: '/api/users/p-1',
        method: 'PUT',
        headers,
        body: JSON.stringify({ profile: { position: `Prune ${i}` } }),
      });
      await res.body.dump();
      samples.push([t0, performance.now() - t0]);
    }
  };
  await Promise.all([watch, ...Array.from({ length: 4 }, loop)]);
  await pool.close();
  const during = samples.filter(([t]) => t < prunedAt).map(([, d]) => d);
  const after = samples.filter(([t]) => t >= prunedAt).map(([, d]) => d);
  during.sort((a, b) => a - b);
  after.sort((a, b) => a - b);
  line(`pruning ${fmt(EVENTS, 0)} expired events took`, `${fmt((prunedAt - started) / 1000, 1)} s`);
  line(
    'PUT, 4 in flight, while pruning',
    `p50 ${ms(quantile(during, 0.5))}  p99 ${ms(quantile(during, 0.99))}  (${during.length})`,
  );
  line(
    'PUT, 4 in flight, after',
    `p50 ${ms(quantile(after, 0.5))}  p99 ${ms(quantile(after, 0.99))}  (${after.length})`,
  );
  line(
    'p99 while pruning / after (goal < 2)',
    fmt(quantile(during, 0.99) / quantile(after, 0.99), 2),
  );
}

/**
 * The bench's own connection to the store's database, to seed events faster than any API could
 * write them and to watch the pruner. Rows look like the service's own (one target in TARGETS).
 */
async function connect(dataDir, db) {
  const oneRow = (i, when) => ({
    id: `bench-${i}`,
    type: i % RARE === 0 ? 'user.deleted' : 'user.updated',
    occurred_at: when,
    target_id: `bench-target-${i % TARGETS}`,
  });
  if (!db) {
    const { default: Database } = await import('better-sqlite3');
    const { DATABASE_FILE } = await import(`${ROOT}dist/store/sqlite/files.js`);
    const sqlite = new Database(join(dataDir, DATABASE_FILE));
    return {
      async seed(count) {
        const { tenant_id, branch_id } = sqlite
          .prepare('SELECT tenant_id, branch_id FROM events ORDER BY sequence DESC LIMIT 1')
          .get();
        const insert = sqlite.prepare(
          `INSERT INTO events (id, tenant_id, branch_id, type, occurred_at, actor_type, actor_id,
             actor_name, channel, request_id, target_type, target_id, changes)
           VALUES (@id, ${tenant_id}, ${branch_id}, @type, @occurred_at, 'token', 'bench',
             'bench', 'api', 'bench', 'user', @target_id,
             '{"profile.position":{"from":"a","to":"b"}}')`,
        );
        const start = Date.now() - count * 1000;
        const batch = sqlite.transaction((from, to) => {
          for (let i = from; i < to; i++) {
            insert.run(oneRow(i, new Date(start + i * 1000).toISOString()));
          }
        });
        for (let i = 0; i < count; i += 50_000) batch(i, Math.min(count, i + 50_000));
      },
      async age() {
        sqlite
          .prepare(
            `UPDATE events SET occurred_at = '2000-01-01T00:00:00.000Z' WHERE id LIKE 'bench-%'`,
          )
          .run();
      },
      // Whether any is left, not how many: better-sqlite3 blocks this process, which also
      // times the PUTs, and a count of 1M index entries takes ~40 ms, added to every PUT then
      // in flight (the p99 while pruning moved little when this went: bench/HISTORY.md).
      // With event_targets (migration 19), pruning is done once the sweep has deleted the
      // entries the pruned events left there too: the seeded targets' (a range of its key).
      async anyLeft() {
        const swept = sqlite
          .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event_targets'`)
          .get()
          ? `OR EXISTS (SELECT 1 FROM event_targets WHERE branch_id IN (SELECT id FROM branches)
               AND target_id >= 'bench-target-' AND target_id < 'bench-target.')`
          : '';
        return (
          sqlite
            .prepare(
              `SELECT EXISTS (SELECT 1 FROM events WHERE occurred_at < '2001') ${swept} AS n`,
            )
            .get().n === 1
        );
      },
      async checkpoint() {
        sqlite.pragma('wal_checkpoint(TRUNCATE)');
      },
      async close() {
        sqlite.close();
      },
    };
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  return {
    async seed(count) {
      await client.query(
        `INSERT INTO events (id, tenant_id, branch_id, type, occurred_at, actor_type, actor_id,
           actor_name, channel, request_id, target_type, target_id, changes)
         SELECT 'bench-' || i, e.tenant_id, e.branch_id,
           CASE WHEN i % ${RARE} = 0 THEN 'user.deleted' ELSE 'user.updated' END,
           to_char((now() - make_interval(secs => ($1::int - i)::double precision)) AT TIME ZONE 'UTC',
             'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'token', 'bench', 'bench', 'api', 'bench', 'user', 'bench-target-' || (i % ${TARGETS}),
           '{"profile.position":{"from":"a","to":"b"}}'
         FROM generate_series(0, $1::int - 1) AS i,
           (SELECT tenant_id, branch_id FROM events ORDER BY sequence DESC LIMIT 1) AS e`,
        [count],
      );
      await client.query('ANALYZE events');
    },
    async age() {
      await client.query(
        `UPDATE events SET occurred_at = '2000-01-01T00:00:00.000Z' WHERE id LIKE 'bench-%'`,
      );
      await client.query('VACUUM ANALYZE events');
    },
    async anyLeft() {
      const { rows } = await client.query(
        `SELECT EXISTS (SELECT 1 FROM events WHERE occurred_at < '2001') AS n`,
      );
      return rows[0].n;
    },
    async close() {
      await client.end();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
