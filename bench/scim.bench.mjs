// SCIM bench (issue 25): an identity provider's full sync is creates, then PATCHes. SCIM create
// and PATCH throughput against the REST API's create and PUT of the same change, on a fresh
// `roster serve` per backend (SQLite; PostgreSQL when ROSTER_BENCH_DATABASE or
// ROSTER_TEST_DATABASE names a server). The goal: SCIM >= 0.8x REST. Nothing asserted.
import { request } from 'undici';
import { benchDatabase, fmt, heading, line, load, serve, tempDir } from './lib.mjs';

// REST and SCIM loads alternate in short rounds, and the figure is the median of each round's
// ratio: on a shared machine the load of others drifts over seconds, and a REST load measured
// before a SCIM load of the same length would carry that drift into the ratio.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 2);
const IN_FLIGHT = 16;
const V3 = 'application/vnd.service.accessors.user.v3+json';
const SCIM = 'application/scim+json';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const TARGETS = 200;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Warms both, then ROUNDS rounds of `a` then `b` (the order flipped every other round). */
async function paired(a, b) {
  if (WARMUP_SECONDS > 0) {
    await load({ ...a, durationMs: WARMUP_SECONDS * 1000 });
    await load({ ...b, durationMs: WARMUP_SECONDS * 1000 });
  }
  const runs = { a: [], b: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? ['b', 'a'] : ['a', 'b'];
    for (const k of order)
      runs[k].push(await load({ ...(k === 'a' ? a : b), durationMs: SECONDS * 1000 }));
  }
  const sum = (rs) => ({
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: Math.max(...rs.map((r) => r.p99)),
    errors: rs.reduce((n, r) => n + r.errors, 0),
  });
  const ratios = runs.b.map((r, i) => r.rps / runs.a[i].rps);
  return { a: sum(runs.a), b: sum(runs.b), ratio: median(ratios), ratios };
}

const show = (label, r) =>
  line(
    label,
    `${fmt(r.rps, 0)}/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  errors ${r.errors}`,
  );
const showRatio = (label, { ratio, ratios }) =>
  line(
    label,
    `${fmt(ratio, 2)}x median of ${ratios.length} rounds (${ratios.map((r) => fmt(r, 2)).join(' ')}; goal >= 0.8x)`,
  );

async function runOn(backend, database) {
  heading(
    `SCIM vs REST on ${backend} (${IN_FLIGHT} in flight, ${ROUNDS} alternating rounds of ${SECONDS} s per load)`,
  );
  const server = await serve(
    tempDir('roster-bench-scim-'),
    undefined,
    database ? ['--database', database] : [],
  );
  const basic = { authorization: `Basic ${server.token}` };
  const bearer = { authorization: `Bearer ${server.token}` };
  const base = { origin: server.origin, connections: IN_FLIGHT, pid: server.pid };
  let run = 0;
  try {
    // Each load its own keys (a warm-up's creates would collide with the measured run's).
    const creates = await paired(
      {
        ...base,
        expectStatus: 201,
        request: (i) => ({
          path: '/api/users',
          method: 'POST',
          headers: { ...basic, accept: V3, 'content-type': V3 },
          body: JSON.stringify({
            email: `rest${run}-${i}@bench.example`,
            externalId: `rest${run++}-${i}`,
            sendMail: false,
            profile: { firstName: 'Rest', lastName: `User ${i}` },
          }),
        }),
      },
      {
        ...base,
        expectStatus: 201,
        request: (i) => ({
          path: '/scim/v2/Users',
          method: 'POST',
          headers: { ...bearer, accept: SCIM, 'content-type': SCIM },
          body: JSON.stringify({
            schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
            externalId: `scim${run++}-${i}`,
            userName: `scim${run}-${i}@bench.example`,
            name: { givenName: 'Scim', familyName: `User ${i}` },
            emails: [{ value: `scim${run}-${i}@bench.example`, type: 'work', primary: true }],
            active: true,
          }),
        }),
      },
    );
    show('REST POST /api/users', creates.a);
    show('SCIM POST /scim/v2/Users', creates.b);
    showRatio('SCIM create / REST create', creates);

    const ids = [];
    for (let i = 0; i < TARGETS; i++) {
      const res = await request(`${server.origin}/api/users`, {
        method: 'POST',
        headers: { ...basic, accept: V3, 'content-type': V3 },
        body: JSON.stringify({
          email: `target${i}@bench.example`,
          externalId: `target-${i}`,
          sendMail: false,
        }),
      });
      ids.push((await res.body.json()).id);
    }
    const updates = await paired(
      {
        ...base,
        request: (i) => ({
          path: `/api/users/${ids[i % TARGETS]}`,
          method: 'PUT',
          headers: { ...basic, accept: V3, 'content-type': V3 },
          body: JSON.stringify({ profile: { position: `Role ${i}` } }),
        }),
      },
      {
        ...base,
        request: (i) => ({
          path: `/scim/v2/Users/${ids[i % TARGETS]}`,
          method: 'PATCH',
          headers: { ...bearer, accept: SCIM, 'content-type': SCIM },
          body: JSON.stringify({
            schemas: [PATCH_OP],
            Operations: [{ op: 'replace', path: 'title', value: `Role ${i}` }],
          }),
        }),
      },
    );
    show('REST PUT /api/users/{id} (one field)', updates.a);
    show('SCIM PATCH /scim/v2/Users/{id} (one field)', updates.b);
    showRatio('SCIM PATCH / REST PUT', updates);
  } finally {
    await server.stop();
  }
}

export async function run() {
  await runOn('SQLite');
  const db = await benchDatabase();
  if (!db) {
    line('PostgreSQL', 'skipped: set ROSTER_BENCH_DATABASE (or ROSTER_TEST_DATABASE)');
    return;
  }
  try {
    await runOn('PostgreSQL', db.url);
  } finally {
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
