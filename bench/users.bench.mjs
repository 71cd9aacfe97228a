// Users API bench (issue 2): GET by id vs a bare Koa handler, list/search latency at 100k users,
// sustained POST creates. Every figure is measured in this run; nothing is asserted.
import {
  benchDatabase,
  fmt,
  heading,
  line,
  load,
  ROOT,
  serve,
  spawnUntil,
  stop,
  tempDir,
} from './lib.mjs';

const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
// Each load first runs unmeasured for this long: a process just started runs its code in V8's
// interpreter until the optimising compiler has caught up, and the figures are meant for a
// server that has been up for a while (both sides alike). BENCH_WARMUP=0 measures a cold start.
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 3);
const FIRST = [
  'Anna',
  'Ben',
  'Clara',
  'David',
  'Emma',
  'Felix',
  'Greta',
  'Hans',
  'Ida',
  'Jonas',
  'Karla',
  'Lukas',
  'Mia',
  'Noah',
  'Olga',
  'Paul',
];
const LAST = [
  'Müller',
  'Schmidt',
  'Schneider',
  'Fischer',
  'Weber',
  'Meyer',
  'Wagner',
  'Becker',
  'Schulz',
  'Hoffmann',
  'Koch',
  'Richter',
  'Klein',
  'Wolf',
  'Neumann',
  'Schwarz',
];
const CITIES = [
  'Berlin',
  'Hamburg',
  'München',
  'Köln',
  'Frankfurt',
  'Stuttgart',
  'Leipzig',
  'Dresden',
];

/** The bench's user rows, as the store's columns. */
function* rows(tenantId, branchId, count) {
  const now = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    const email = `user${i}@example.com`;
    yield {
      id: (0x10000000 + i).toString(16).padStart(24, '0'),
      tenant_id: tenantId,
      branch_id: branchId,
      created_at: now,
      updated_at: now,
      status: i % 10 === 0 ? 'pending' : 'activated',
      activated_at: now,
      role: 'reader',
      external_id: `emp-${i}`,
      email,
      email_norm: email,
      locale: 'de_DE',
      first_name: FIRST[i % FIRST.length],
      last_name: `${LAST[(i >> 4) % LAST.length]}${i % 7 === 0 ? '-Lang' : ''}`,
      phone: `+49 30 ${100000 + i}`,
      position: 'Engineer',
      department: `Dept ${i % 50}`,
      location: CITIES[i % CITIES.length],
      custom: '{}',
    };
  }
}

/** Inserts `count` users straight into the store's database (search triggers on). */
async function seed(dataDir, database, count) {
  const { databaseTarget, openStore } = await import(`${ROOT}dist/store/open.js`);
  const store = await openStore({ dataDir, target: databaseTarget(database, dataDir) });
  const tenant = await store.tenants.byHost('*');
  const branch = await store.branches.byName(tenant.id, 'main');
  const started = performance.now();
  const all = rows(tenant.id, branch.id, count);
  const columns = Object.keys(rows(0, 0, 1).next().value);
  if (store.engine === 'sqlite') {
    const insert = store.db.prepare(
      `INSERT INTO users (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
    );
    store.db.transaction(() => {
      for (const row of all) insert.run(row);
    })();
  } else {
    let batch = [];
    const flush = async () => {
      const values = batch.flatMap((r) => columns.map((c) => r[c]));
      const tuples = batch.map(
        (_, i) => `(${columns.map((_, j) => `$${i * columns.length + j + 1}`).join(', ')})`,
      );
      await store.pool.query(
        `INSERT INTO users (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')}`,
        values,
      );
      batch = [];
    };
    for (const row of all) {
      batch.push(row);
      if (batch.length === 1000) await flush();
    }
    if (batch.length > 0) await flush();
    await store.pool.query('VACUUM ANALYZE users');
  }
  await store.close();
  return { seconds: (performance.now() - started) / 1000, branchId: branch.id };
}

const V3 = 'application/vnd.service.accessors.user.v3+json';
const USERS_V2 = 'application/vnd.service.accessors.users.v2+json';

export async function run() {
  // BENCH_BACKEND=sqlite|postgres runs one of them only.
  const only = process.env.BENCH_BACKEND;
  if (only !== 'postgres') await runOn('SQLite', undefined);
  if (only === 'sqlite') return;
  const db = await benchDatabase();
  if (!db) {
    console.log(
      '\n(PostgreSQL: set ROSTER_BENCH_DATABASE=postgres://… to bench it in the same run)',
    );
    return;
  }
  try {
    await runOn('PostgreSQL', db.url);
  } finally {
    await db.drop();
  }
}

/** `load`, after the same load unmeasured for WARMUP_SECONDS (see above). */
async function warmLoad(options) {
  if (WARMUP_SECONDS > 0) await load({ ...options, durationMs: WARMUP_SECONDS * 1000 });
  return load(options);
}

async function runOn(backend, database) {
  heading(
    `Users API on ${backend} (${fmt(USERS, 0)} users, ${SECONDS} s per load after ${WARMUP_SECONDS} s unmeasured)`,
  );
  const dataDir = tempDir('roster-bench-users-');
  const configDir = tempDir('roster-bench-config-');
  const extra = database ? ['--database', database] : [];
  await (await serve(dataDir, configDir, extra)).stop(); // first run: tenant, branch, admin token
  const seeded = await seed(dataDir, database, USERS);
  line(
    'seed (search triggers on)',
    `${fmt(seeded.seconds, 2)} s (${fmt(USERS / seeded.seconds, 0)} rows/s)`,
  );
  const server = await serve(dataDir, configDir, extra);
  const auth = { authorization: `Basic ${server.token}` };

  // GET /api/users/{id} vs bare Koa with the same JSON.
  const one = await fetch(`${server.origin}/api/users/emp-42`, {
    headers: { ...auth, accept: V3 },
  });
  const userJson = await one.text();
  const bare = await spawnUntil(
    [`${ROOT}bench/bare-koa.mjs`, userJson],
    /listening on (http:\/\/\S+)/,
  );
  const baseline = await warmLoad({
    origin: bare.match[1],
    connections: 16,
    durationMs: SECONDS * 1000,
    request: () => ({ path: '/', method: 'GET', headers: { ...auth, accept: V3 } }),
    pid: bare.child.pid,
  });
  await stop(bare.child);
  // The same, making the two reads an exact GET by id needs (see bare-koa-reads.mjs).
  const floor = await spawnUntil(
    [
      `${ROOT}bench/bare-koa-reads.mjs`,
      userJson,
      database ?? `sqlite:${dataDir}`,
      String(seeded.branchId),
    ],
    /listening on (http:\/\/\S+)/,
  );
  const withReads = await warmLoad({
    origin: floor.match[1],
    connections: 16,
    durationMs: SECONDS * 1000,
    request: (i) => ({ path: `/emp-${(i * 7919) % USERS}`, method: 'GET' }),
    pid: floor.child.pid,
  });
  await stop(floor.child);
  const byId = await warmLoad({
    origin: server.origin,
    connections: 16,
    durationMs: SECONDS * 1000,
    request: (i) => ({
      path: `/api/users/emp-${(i * 7919) % USERS}`,
      method: 'GET',
      headers: { ...auth, accept: V3 },
    }),
    pid: server.pid,
  });
  const cpu = (r) => `${fmt(r.cpuUsPerRequest, 1)} µs server CPU/request`;
  line(
    'bare Koa, same JSON (16 connections)',
    `${fmt(baseline.rps, 0)} req/s  p50 ${fmt(baseline.p50, 2)} ms  p99 ${fmt(baseline.p99, 2)} ms  ${cpu(baseline)}`,
  );
  line(
    'bare Koa + the credentials check and the row read',
    `${fmt(withReads.rps, 0)} req/s  p50 ${fmt(withReads.p50, 2)} ms  p99 ${fmt(withReads.p99, 2)} ms  ${cpu(withReads)}  errors ${withReads.errors}`,
  );
  line(
    'GET /api/users/{externalId} (16 connections)',
    `${fmt(byId.rps, 0)} req/s  p50 ${fmt(byId.p50, 2)} ms  p99 ${fmt(byId.p99, 2)} ms  ${cpu(byId)}  errors ${byId.errors}`,
  );
  line(
    `ratio roster / bare Koa, req/s (goal >= ${database ? '0.3' : '0.5'})`,
    fmt(byId.rps / baseline.rps, 2),
  );
  line('ratio bare Koa + the reads / bare Koa, req/s', fmt(withReads.rps / baseline.rps, 2));
  line(
    'ratio by server CPU per request (steadier)',
    fmt(baseline.cpuUsPerRequest / byId.cpuUsPerRequest, 2),
  );

  // List and search latency, one request at a time.
  const latency = async (label, path) => {
    const r = await warmLoad({
      origin: server.origin,
      connections: 1,
      durationMs: SECONDS * 600,
      request: () => ({ path, method: 'GET', headers: { ...auth, accept: USERS_V2 } }),
    });
    line(
      label,
      `p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  (${r.requests} requests, goal p99 < 20 ms)`,
    );
  };
  await latency('GET /api/users?limit=100', '/api/users?limit=100');
  await latency('GET /api/users?limit=100&offset=50000', '/api/users?limit=100&offset=50000');
  await latency('GET /api/users?limit=100&query=Schm (prefix)', '/api/users?limit=100&query=Schm');
  await latency('GET /api/users?limit=100&query=M (broad prefix)', '/api/users?limit=100&query=M');
  await latency(
    'GET /api/users?limit=100&query=anna berlin',
    '/api/users?limit=100&query=anna%20berlin',
  );

  // Sustained creates.
  const posts = await load({
    origin: server.origin,
    connections: 16,
    durationMs: SECONDS * 1000,
    expectStatus: 201,
    request: (i) => ({
      path: '/api/users',
      method: 'POST',
      headers: { ...auth, accept: V3, 'content-type': V3 },
      body: JSON.stringify({
        email: `new${i}@bench.example`,
        externalId: `new-${i}`,
        sendMail: false,
        profile: { firstName: 'New', lastName: `User ${i}` },
      }),
    }),
  });
  line(
    'POST /api/users, 16 in flight',
    `${fmt(posts.rps, 0)} creates/s  p50 ${fmt(posts.p50, 2)} ms  p99 ${fmt(posts.p99, 2)} ms  errors ${posts.errors}`,
  );
  await server.stop();
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
