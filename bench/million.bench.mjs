// A million users in one tenant (issues 27, 41): `npm run bench -- million`. Not part of CI: it
// needs a seeded store, reused between runs, which it seeds itself when empty (bench/seed.mjs;
// or seed one first with `node bench/seed.mjs --users 1000000 --data DIR`):
//   MILLION_DATA=/work/svc/million/sqlite npm run bench -- million
//   MILLION_DATABASE=postgres://…/roster_million MILLION_DATA=DIR npm run bench -- million
// MILLION_PARTS=sorts (or lists, search, cli, comma-separated) runs only those parts;
// MILLION_SORTS=firstName_DESC_lastName_ASC,… only those sorts of the sorts part.
// p50/p99 at one and at two requests in flight (one per core here), after a warm-up. Figures
// only.
import { mkdirSync } from 'node:fs';
import {
  BIN,
  exec,
  fmt,
  heading,
  LAUNCHER,
  line,
  load,
  ROOT,
  spawnUntil,
  stop,
  tempDir,
} from './lib.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const USERS_V2 = 'application/vnd.service.accessors.users.v2+json';
const V3 = 'application/vnd.service.accessors.user.v3+json';
const ALL = 'activated,pending,deactivated';
/** Which parts to run (MILLION_PARTS=lists,search,sorts,cli; default all): one part's figures again. */
const PARTS = new Set((process.env.MILLION_PARTS ?? 'lists,search,sorts,cli').split(','));
/** Which sorts the sorts part runs (MILLION_SORTS=firstName_DESC_lastName_ASC,…; default all). */
const SORTS = process.env.MILLION_SORTS ? new Set(process.env.MILLION_SORTS.split(',')) : undefined;

/** Opens the store once (applying any pending migration, timed) and makes a bench token. */
export async function prepare(dataDir, database) {
  const { databaseTarget, openStore } = await import(`${ROOT}dist/store/open.js`);
  const started = performance.now();
  const store = await openStore({ dataDir, target: databaseTarget(database, dataDir) });
  const openSeconds = (performance.now() - started) / 1000;
  await store.bootstrap();
  const tenant = await store.tenants.byHost('*');
  const branch = await store.branches.byName(tenant.id, 'main');
  const { systemAudit } = await import(`${ROOT}dist/store/common/event-rows.js`);
  const { secret } = await store.tokens.create(
    branch.id,
    'million-bench',
    ['users:read', 'users:write', 'media:read', 'media:write'],
    ['api'],
    systemAudit('million bench'),
  );
  const { total } = await store.users.list({
    branchId: branch.id,
    statuses: ['activated', 'pending', 'deactivated'],
    sort: [
      { key: 'createdAt', dir: 'ASC' },
      { key: 'lastName', dir: 'ASC' },
    ],
    limit: 1,
    offset: 0,
  });
  await store.close();
  return { openSeconds, token: secret, users: total };
}

export async function run() {
  const dataDir = process.env.MILLION_DATA;
  const database = process.env.MILLION_DATABASE;
  heading(`A million users (${database ? 'PostgreSQL' : 'SQLite'})`);
  if (!dataDir) {
    console.log(
      '  set MILLION_DATA to a data dir (and MILLION_DATABASE to a PostgreSQL database): seeded with MILLION_USERS (1,000,000) users when empty',
    );
    return;
  }
  // One command on a fresh machine: an empty store is seeded first (~20 min for 1M here).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let prep = await prepare(dataDir, database);
  if (prep.users === 0) {
    const { seedUsers } = await import('./seed.mjs');
    const users = Number(process.env.MILLION_USERS ?? 1_000_000);
    const made = await seedUsers({ dataDir, database, users, log: (l) => console.log(l) });
    line('seeded', `${fmt(made.users, 0)} users in ${fmt(made.seconds, 0)} s`);
    prep = await prepare(dataDir, database);
  }
  line('users in the branch', fmt(prep.users, 0));
  line('open the store (pending migrations included)', `${fmt(prep.openSeconds, 2)} s`);

  const configDir = tempDir('roster-million-config-');
  mkdirSync(configDir, { recursive: true });
  const { child, match } = await spawnUntil(
    [BIN, 'serve', '--port', '0', '--data', dataDir, ...(database ? ['--database', database] : [])],
    /listening on (http:\/\/\S+)\/api/,
    { ROSTER_CONFIG_DIR: configDir },
  );
  const origin = match[1];
  const auth = { authorization: `Basic ${prep.token}` };
  const get = async (path, accept = USERS_V2) => {
    const r = await fetch(`${origin}${path}`, { headers: { ...auth, accept } });
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  // p50/p99 at one request in flight and at two (one per core here), after a warm-up each.
  const measure = async (label, paths, accept = USERS_V2, seconds = SECONDS) => {
    const list = Array.isArray(paths) ? paths : [paths];
    const request = (i) => ({
      path: list[i % list.length],
      method: 'GET',
      headers: { ...auth, accept },
    });
    const at = async (connections) => {
      if (WARMUP > 0) await load({ origin, connections, durationMs: WARMUP * 1000, request });
      return load({ origin, connections, durationMs: seconds * 1000, request, pid: child.pid });
    };
    await get(list[0], accept); // a refusal fails the run rather than being timed
    const one = await at(1);
    const two = await at(2);
    line(
      label,
      `1: p50 ${fmt(one.p50, 2)} p99 ${fmt(one.p99, 2)} | 2: p50 ${fmt(two.p50, 2)} p99 ${fmt(two.p99, 2)} ms (errors ${one.errors + two.errors})`,
    );
    if (process.env.BENCH_JSON) {
      console.log(
        JSON.stringify({
          bench: 'million',
          backend: database ? 'postgres' : 'sqlite',
          label,
          one: { p50: one.p50, p99: one.p99 },
          two: { p50: two.p50, p99: two.p99 },
        }),
      );
    }
    return two;
  };
  try {
    if (PARTS.has('lists')) await lists(measure, prep);
    if (PARTS.has('search')) await searches(measure);
    if (PARTS.has('sorts')) await sorts(measure, get, prep);
    if (PARTS.has('cli')) await cli(origin, prep, configDir);
    // The export of every user: million-export.bench.mjs (its own serve, so VmHWM is its own).
  } finally {
    await stop(child);
  }
}

async function lists(measure, prep) {
  await measure('first page, default filter and sort (limit 100)', '/api/users');
  await measure('status=pending', '/api/users?status=pending');
  await measure('status=activated,pending', '/api/users?status=activated,pending');
  const ids = Array.from({ length: 1000 }, (_, i) => `/api/users/emp-${(i * 7919) % prep.users}`);
  await measure('GET /users/{externalId}', ids, V3);
}

async function searches(measure) {
  // The query classes (issue 41), each with and without a status filter, in the
  // default order and by first name. The seed's names are all common (66 first, 67 last):
  // the rare name is a pair (~1 in 4,400), the email fragment a number word after two names.
  const queries = [
    ['one letter', 'M'],
    ['two letters', 'Mü'],
    ['common prefix', 'Schm'],
    ['full name', 'Anna Schmidt'],
    ['email fragment', 'anna.schmidt.42'],
    ['rare name', 'Quirin Novák'],
    ['no match', 'Xyzzy'],
  ];
  for (const [kind, q] of queries) {
    for (const status of ['', '&status=pending']) {
      for (const sort of ['', '&sort=firstName_ASC_lastName_ASC']) {
        await measure(
          `query=${q} (${kind})${status}${sort}`,
          `/api/users?query=${encodeURIComponent(q)}${status}${sort}`,
        );
      }
    }
  }
}

async function sorts(measure, get, prep) {
  // Every sort: page 1 and, by cursor, the page 200 rows before the end (every status, so
  // 1,000,000 rows; pending alone ~80,000), against page 1.
  for (const [statuses, inList] of [
    [ALL, prep.users],
    ['pending', undefined],
  ]) {
    for (const sort of [
      'lastName_ASC_firstName_ASC',
      'lastName_DESC_firstName_ASC',
      'firstName_DESC_lastName_ASC',
      'createdAt_DESC_lastName_ASC',
      'email_ASC_lastName_ASC',
      'email_DESC_firstName_ASC',
      'externalId_ASC_lastName_ASC',
      'status_ASC_lastName_ASC',
      'status_DESC_firstName_ASC',
    ].filter((s) => !SORTS || SORTS.has(s))) {
      const base = `/api/users?status=${statuses}&sort=${sort}&limit=100`;
      const size = inList ?? (await get(`${base}`)).total;
      const t0 = performance.now();
      const before = await get(`${base}&offset=${Math.max(0, size - 200)}`);
      const offsetMs = performance.now() - t0;
      const cursor = before.next;
      const first = await measure(`${statuses} ${sort}: page 1`, base, USERS_V2, 3);
      if (!cursor) {
        line(`${sort}: no cursor near the end`, '');
        continue;
      }
      const deep = await measure(
        `${statuses} ${sort}: deep page by cursor`,
        `${base}&after=${encodeURIComponent(cursor)}`,
        USERS_V2,
        3,
      );
      line(
        `${statuses} ${sort}: deep / page 1 (p99, 2 in flight); offset once`,
        `${fmt(deep.p99 / first.p99, 2)}×; offset ${fmt(offsetMs, 0)} ms`,
      );
    }
  }
}

async function cli(origin, prep, configDir) {
  // The built CLI's `users list --query` wall time, start-up included (median of 5; its
  // output to a pipe, so the plain rows a script gets rather than a terminal's table).
  const cliEnv = {
    ROSTER_CONFIG_DIR: configDir,
    ROSTER_BASE_URL: `${origin}/api`,
    ROSTER_TOKEN: prep.token,
  };
  for (const q of ['M', 'Schm', 'Anna Schmidt']) {
    const walls = [];
    for (let i = 0; i < 5; i++)
      walls.push((await exec(LAUNCHER, ['users', 'list', '--query', q], cliEnv)).seconds);
    walls.sort((a, b) => a - b);
    line(`CLI users list --query '${q}' wall (median of 5)`, `${fmt(walls[2] * 1000, 0)} ms`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
