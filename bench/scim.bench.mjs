// SCIM bench (issue 25): an identity provider's full sync is creates, then PATCHes. SCIM create
// and PATCH throughput against the REST API's create and PUT of the same change, on a fresh
// `roster serve` per backend (SQLite; PostgreSQL when ROSTER_BENCH_DATABASE or
// ROSTER_TEST_DATABASE names a server). The goal: SCIM >= 0.8x REST. Nothing asserted.
import { request } from 'undici';
import { benchDatabase, fmt, heading, line, load, serve, tempDir } from './lib.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 3);
const IN_FLIGHT = 16;
const V3 = 'application/vnd.service.accessors.user.v3+json';
const SCIM = 'application/scim+json';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const TARGETS = 200;

async function warmLoad(options) {
  if (WARMUP_SECONDS > 0) await load({ ...options, durationMs: WARMUP_SECONDS * 1000 });
  return load({ ...options, durationMs: SECONDS * 1000 });
}

const show = (label, r) =>
  line(
    label,
    `${fmt(r.rps, 0)}/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  errors ${r.errors}`,
  );

async function runOn(backend, database) {
  heading(`SCIM vs REST on ${backend} (${IN_FLIGHT} in flight, ${SECONDS} s per load)`);
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
    const rest = await warmLoad({
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
    });
    const scim = await warmLoad({
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
    });
    show('REST POST /api/users', rest);
    show('SCIM POST /scim/v2/Users', scim);
    line('SCIM create / REST create', `${fmt(scim.rps / rest.rps, 2)}x (goal >= 0.8x)`);

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
    const put = await warmLoad({
      ...base,
      request: (i) => ({
        path: `/api/users/${ids[i % TARGETS]}`,
        method: 'PUT',
        headers: { ...basic, accept: V3, 'content-type': V3 },
        body: JSON.stringify({ profile: { position: `Role ${i}` } }),
      }),
    });
    const patch = await warmLoad({
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
    });
    show('REST PUT /api/users/{id} (one field)', put);
    show('SCIM PATCH /scim/v2/Users/{id} (one field)', patch);
    line('SCIM PATCH / REST PUT', `${fmt(patch.rps / put.rps, 2)}x (goal >= 0.8x)`);
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
