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
// GET by id's loads alternate in this many rounds (see getById).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// BENCH_PARTS=get,list,post,writes (the default: all) runs some of them only.
const PARTS = new Set((process.env.BENCH_PARTS ?? 'get,list,post,writes').split(','));
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
    const { sqliteHandle } = await import(`${ROOT}dist/store/sqlite/handle.js`);
    // With their search words, as the repo writes them.
    const { searchEntry } = await import(`${ROOT}dist/store/sqlite/fts-words.js`);
    const db = sqliteHandle(store);
    const insert = db.prepare(
      `INSERT INTO users (${columns.join(', ')}, words) VALUES (${columns.map((c) => `@${c}`).join(', ')}, @words)`,
    );
    db.transaction(() => {
      for (const row of all) insert.run({ ...row, words: searchEntry(row) });
    })();
  } else {
    const { postgresHandle } = await import(`${ROOT}dist/store/postgres/handle.js`);
    const pool = postgresHandle(store);
    let batch = [];
    const flush = async () => {
      const values = batch.flatMap((r) => columns.map((c) => r[c]));
      const tuples = batch.map(
        (_, i) => `(${columns.map((_, j) => `$${i * columns.length + j + 1}`).join(', ')})`,
      );
      await pool.query(
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
    await pool.query('VACUUM ANALYZE users');
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * GET /api/users/{id} against bare Koa answering the same JSON and against the floor, bare Koa
 * making the two reads a GET by id needs (bare-koa-reads.mjs). All three servers stay up; each is
 * warmed, then ROUNDS rounds load each in turn (the order rotated every round), and each ratio
 * is the median of the rounds' ratios: on a shared machine a ratio from the same round moves
 * far less than either figure.
 */
async function getById(server, auth, database, dataDir, branchId) {
  const one = await fetch(`${server.origin}/api/users/emp-42`, {
    headers: { ...auth, accept: V3 },
  });
  const userJson = await one.text();
  const bare = await spawnUntil(
    [`${ROOT}bench/bare-koa.mjs`, userJson],
    /listening on (http:\/\/\S+)/,
  );
  const floor = await spawnUntil(
    [
      `${ROOT}bench/bare-koa-reads.mjs`,
      userJson,
      database ?? `sqlite:${dataDir}`,
      String(branchId),
    ],
    /listening on (http:\/\/\S+)/,
  );
  const targets = {
    bare: {
      label: 'bare Koa, same JSON (16 connections)',
      origin: bare.match[1],
      pid: bare.child.pid,
      request: () => ({ path: '/', method: 'GET', headers: { ...auth, accept: V3 } }),
    },
    floor: {
      label: 'bare Koa + the credentials check and the row read',
      origin: floor.match[1],
      pid: floor.child.pid,
      // The same request as Roster's: its bytes cost the load generator and Node's parser alike.
      request: (i) => ({
        path: `/api/users/emp-${(i * 7919) % USERS}`,
        method: 'GET',
        headers: { ...auth, accept: V3 },
      }),
    },
    roster: {
      label: 'GET /api/users/{externalId} (16 connections)',
      origin: server.origin,
      pid: server.pid,
      request: (i) => ({
        path: `/api/users/emp-${(i * 7919) % USERS}`,
        method: 'GET',
        headers: { ...auth, accept: V3 },
      }),
    },
  };
  const names = Object.keys(targets);
  const loadOf = (name, durationMs) => load({ ...targets[name], connections: 16, durationMs });
  try {
    if (WARMUP_SECONDS > 0) {
      for (const name of names) await loadOf(name, WARMUP_SECONDS * 1000);
    }
    const runs = Object.fromEntries(names.map((n) => [n, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(k + round) % names.length];
        runs[name].push(await loadOf(name, SECONDS * 1000));
      }
    }
    const perRound = (f) => runs.roster.map((_, i) => f(i));
    const cpu = (rs) => `${fmt(median(rs.map((r) => r.cpuUsPerRequest)), 1)} µs server CPU/request`;
    for (const name of names) {
      const rs = runs[name];
      const errors = rs.reduce((n, r) => n + r.errors, 0);
      line(
        targets[name].label,
        `${fmt(median(rs.map((r) => r.rps)), 0)} req/s  p50 ${fmt(median(rs.map((r) => r.p50)), 2)} ms  p99 ${fmt(median(rs.map((r) => r.p99)), 2)} ms  ${cpu(rs)}  errors ${errors}`,
      );
    }
    const ratio = (label, xs) =>
      line(label, `${fmt(median(xs), 2)} (rounds ${xs.map((x) => fmt(x, 2)).join(' ')})`);
    ratio(
      `ratio roster / the floor, req/s (goal >= ${database ? '0.9' : '0.8'})`,
      perRound((i) => runs.roster[i].rps / runs.floor[i].rps),
    );
    ratio(
      'ratio roster / the floor, by server CPU per request',
      perRound((i) => runs.floor[i].cpuUsPerRequest / runs.roster[i].cpuUsPerRequest),
    );
    ratio(
      'ratio roster / bare Koa, req/s',
      perRound((i) => runs.roster[i].rps / runs.bare[i].rps),
    );
    ratio(
      'ratio the floor / bare Koa, req/s',
      perRound((i) => runs.floor[i].rps / runs.bare[i].rps),
    );
  } finally {
    await stop(bare.child);
    await stop(floor.child);
  }
}

/**
 * POST and PUT against their floor, bare Koa making the same writes through the store
 * (bare-koa-writes.mjs), in alternating rounds as getById. Each side creates its own users.
 */
async function writes(server, auth, database, dataDir, branchId) {
  const one = await fetch(`${server.origin}/api/users/emp-43`, {
    headers: { ...auth, accept: V3 },
  });
  const floor = await spawnUntil(
    [
      `${ROOT}bench/bare-koa-writes.mjs`,
      await one.text(),
      dataDir,
      database ?? '',
      String(branchId),
    ],
    /listening on (http:\/\/\S+)/,
  );
  const headers = { ...auth, accept: V3, 'content-type': V3 };
  const created = { floor: 0, roster: 0 };
  const create = (side) => () => {
    const n = created[side]++;
    return {
      path: '/api/users',
      method: 'POST',
      headers,
      body: JSON.stringify({
        email: `${side}${n}@bench.example`,
        externalId: `${side}-${n}`,
        sendMail: false,
        profile: { firstName: 'New', lastName: `User ${n}` },
      }),
    };
  };
  const update = (i) => ({
    path: `/api/users/emp-${(i * 7919) % USERS}`,
    method: 'PUT',
    headers,
    body: JSON.stringify({ profile: { position: `Role ${i}` } }),
  });
  const sides = {
    floor: { origin: floor.match[1], pid: floor.child.pid },
    roster: { origin: server.origin, pid: server.pid },
  };
  try {
    for (const [label, expectStatus, requestOf] of [
      ['POST /api/users', 201, create],
      ['PUT /api/users/{externalId} (one field)', 200, () => update],
    ]) {
      const runs = { floor: [], roster: [] };
      const loadOf = (side, seconds) =>
        load({
          ...sides[side],
          connections: 16,
          durationMs: seconds * 1000,
          expectStatus,
          request: requestOf(side),
        });
      if (WARMUP_SECONDS > 0) {
        for (const side of ['floor', 'roster']) await loadOf(side, WARMUP_SECONDS);
      }
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 ? ['roster', 'floor'] : ['floor', 'roster']) {
          runs[side].push(await loadOf(side, SECONDS));
        }
      }
      for (const side of ['floor', 'roster']) {
        const rs = runs[side];
        line(
          `${label}, ${side === 'floor' ? 'the floor (bare Koa, same writes)' : 'Roster'}`,
          `${fmt(median(rs.map((r) => r.rps)), 0)}/s  p50 ${fmt(median(rs.map((r) => r.p50)), 2)} ms  ${fmt(median(rs.map((r) => r.cpuUsPerRequest)), 1)} µs server CPU/request  errors ${rs.reduce((n, r) => n + r.errors, 0)}`,
        );
      }
      const ratios = runs.roster.map((r, i) => r.rps / runs.floor[i].rps);
      line(
        `${label}: roster / the floor, req/s`,
        `${fmt(median(ratios), 2)} (rounds ${ratios.map((x) => fmt(x, 2)).join(' ')})`,
      );
    }
  } finally {
    await stop(floor.child);
  }
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

  if (PARTS.has('get')) await getById(server, auth, database, dataDir, seeded.branchId);
  // List and search latency, one request at a time.
  if (PARTS.has('list')) await lists(server, auth);
  if (PARTS.has('post')) await posts(server, auth);
  if (PARTS.has('writes')) await writes(server, auth, database, dataDir, seeded.branchId);
  await server.stop();
}

async function lists(server, auth) {
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
}

/** Sustained creates. */
async function posts(server, auth) {
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
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
