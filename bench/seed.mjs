// Fills a tenant with N realistic users straight through the store, for benchmarks (issue 27):
//   node bench/seed.mjs --users 1000000 --data DIR [--database postgres://…] [--seed 1]
// Not a test of the API: rows are built as the store builds them (emptyUserRow, identity norms
// from the contract's identityKey, version 1) and written by batched multi-row INSERTs in
// transactions, so the store's own triggers keep the search entries (SQLite FTS5, PostgreSQL's
// tsvector) and PostgreSQL's generated sort keys. The same data for the same --seed.
import { mkdirSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib.mjs';

/** Bytes a user costs on disk with its indexes and search entry (measured: ~1.1 KB SQLite, ~1.4 KB PG). */
const BYTES_PER_USER = { sqlite: 1600, postgres: 2000 };

const FIRST = (
  'Anna Ben Clara David Emma Felix Greta Hans Ida Jonas Karla Lukas Mia Noah Olga Paul Quirin ' +
  'Rosa Sven Tilda Ulrich Vera Willi Xenia Yusuf Zoe Ängela Élodie Jürgen Søren Łukasz Ömer ' +
  'Marie Sophie Leon Finn Elias Hannah Lea Lina Maximilian Moritz Julia Laura Niklas Tim Jan ' +
  'Sarah Lisa Tom Ahmed Fatma Mehmet Aylin Olena Dmytro Chen Wei Priya Arjun José María Lucía'
).split(' ');
const LAST = (
  'Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz Hoffmann Schäfer Koch ' +
  'Bauer Richter Klein Wolf Schröder Neumann Schwarz Zimmermann Braun Krüger Hofmann Hartmann ' +
  'Lange Schmitt Werner Schmitz Krause Meier Lehmann Schmid Schulze Maier Köhler Herrmann ' +
  'König Walter Mayer Huber Kaiser Fuchs Peters Lang Scholz Möller Weiß Jung Hahn Schubert ' +
  'Yılmaz Kaya Nowak Kowalski García Rossi Dubois Nguyen Smith Jones Andersson Novák'
).split(' ');
const CITIES = (
  'Berlin Hamburg München Köln Frankfurt Stuttgart Düsseldorf Leipzig Dortmund Essen Bremen ' +
  'Dresden Hannover Nürnberg Wien Zürich Graz Basel'
).split(' ');
const DEPARTMENTS = [
  'Engineering',
  'Sales',
  'Marketing',
  'Finance',
  'Human Resources',
  'Customer Success',
  'Operations',
  'Legal',
  'Logistics',
  'Production',
  'Research',
  'Facility Management',
];
const POSITIONS = [
  'Engineer',
  'Senior Engineer',
  'Team Lead',
  'Manager',
  'Director',
  'Analyst',
  'Consultant',
  'Assistant',
  'Technician',
  'Specialist',
  'Working Student',
  'Apprentice',
];
const LOCALES = ['de_DE', 'de_DE', 'de_DE', 'en_US', 'en_GB', 'fr_FR', 'de_AT', 'de_CH'];

/** mulberry32: a small seeded generator, so a seed gives the same users every time. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ascii = (s) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/ł/g, 'l')
    .replace(/ı/g, 'i')
    .replace(/ø/g, 'o')
    .toLowerCase();

/**
 * The i-th user's row in the store's shape. Weighted like a real workforce: most activated
 * readers, some pending and deactivated, a few admins; created over five years, with ids in
 * creation order as objectIds are.
 */
export function* userRows({ tenantId, branchId, count, seed = 1, emptyUserRow, identityKey }) {
  const rnd = random(seed);
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const start = Date.parse('2021-01-01T00:00:00Z');
  const span = Date.parse('2026-01-01T00:00:00Z') - start;
  const machine = Buffer.from(`5eed${seed.toString(16).padStart(6, '0')}`, 'hex');
  for (let i = 0; i < count; i++) {
    const at = start + Math.floor((span * i) / count);
    const id = Buffer.alloc(12);
    id.writeUInt32BE(Math.floor(at / 1000), 0);
    machine.copy(id, 4);
    id.writeUIntBE(i % 0x1000000, 9, 3);
    const created = new Date(at).toISOString();
    const first = pick(FIRST);
    const last = rnd() < 0.05 ? `${pick(LAST)}-${pick(LAST)}` : pick(LAST);
    const r = rnd();
    const status = r < 0.85 ? 'activated' : r < 0.93 ? 'pending' : 'deactivated';
    const q = rnd();
    const role =
      q < 0.85
        ? 'reader'
        : q < 0.93
          ? 'editor'
          : q < 0.96
            ? 'moderator'
            : q < 0.98
              ? 'admin'
              : 'restricted';
    const email = rnd() < 0.97 ? `${ascii(first)}.${ascii(last)}.${i}@example.com` : null;
    const userName = rnd() < 0.4 ? `${ascii(first)}${ascii(last)}${i}` : null;
    yield {
      ...emptyUserRow({
        id: id.toString('hex'),
        tenant_id: tenantId,
        branch_id: branchId,
        created_at: created,
      }),
      status,
      external_id: `emp-${i}`,
      email,
      email_norm: email && identityKey('email', email),
      user_name: userName,
      user_name_norm: userName && identityKey('userName', userName),
      first_name: first,
      last_name: last,
      role,
      locale: pick(LOCALES),
      position: pick(POSITIONS),
      department: pick(DEPARTMENTS),
      location: pick(CITIES),
      phone: rnd() < 0.7 ? `+49 ${30 + Math.floor(rnd() * 70)} ${100000 + i}` : null,
      updated_at: created,
      activated_at: status === 'pending' ? null : created,
    };
  }
}

/** Free bytes where `path` lives. */
const freeBytes = (path) => {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
};

/** Where a local PostgreSQL server keeps its data, when this user may ask (else undefined). */
async function postgresDataDir(pool, url) {
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(new URL(url).hostname)) return undefined;
  try {
    return (await pool.query('SHOW data_directory')).rows[0].data_directory;
  } catch {
    return undefined;
  }
}

/**
 * Seeds `users` users into the default tenant's `main` branch of the store at dataDir/database
 * (bootstrapping it when empty). Refuses (throws) when the disk has less than twice the room
 * the rows need. Returns what it made.
 */
export async function seedUsers({
  dataDir,
  database,
  users,
  seed = 1,
  batch = 1000,
  log = () => {},
}) {
  const { databaseTarget, openStore } = await import(`${ROOT}dist/store/open.js`);
  const { emptyUserRow } = await import(`${ROOT}dist/store/types.js`);
  const { identityKey } = await import(`${ROOT}dist/contract/identity.js`);
  const store = await openStore({ dataDir, target: databaseTarget(database, dataDir) });
  try {
    const bootstrapped = await store.bootstrap();
    const tenant = await store.tenants.byHost('*');
    const branch = await store.branches.byName(tenant.id, 'main');
    const engine = store.engine;
    const need = users * BYTES_PER_USER[engine] * 2;
    let pool;
    let db;
    let where = dataDir;
    if (engine === 'sqlite') {
      ({ sqliteHandle: db } = await import(`${ROOT}dist/store/sqlite/handle.js`));
      db = db(store);
      where = databaseTarget(database, dataDir).dir;
    } else {
      const { postgresHandle } = await import(`${ROOT}dist/store/postgres/handle.js`);
      pool = postgresHandle(store);
      where = await postgresDataDir(pool, database);
    }
    if (where) {
      const free = freeBytes(where);
      if (free < need) {
        throw new Error(
          `refusing to seed ${users.toLocaleString('en-US')} users: ${where} has ${(free / 2 ** 30).toFixed(1)} GiB free, ` +
            `and they need about ${(need / 2 ** 30).toFixed(1)} GiB (twice their estimated size); free some room or seed fewer`,
        );
      }
    } else {
      log(`(cannot see the PostgreSQL server's disk from here: not checking free space)`);
    }
    const generated = userRows({
      tenantId: tenant.id,
      branchId: branch.id,
      count: users,
      seed,
      emptyUserRow,
      identityKey,
    });
    // SQLite's rows carry their search words, as the repo writes them (sqlite/fts-words.ts).
    const { searchEntry } =
      engine === 'sqlite' ? await import(`${ROOT}dist/store/sqlite/fts-words.js`) : {};
    const rows = searchEntry
      ? (function* () {
          for (const row of generated) yield { ...row, words: searchEntry(row) };
        })()
      : generated;
    const first = rows.next();
    if (first.done) return { users: 0, seconds: 0 };
    const columns = Object.keys(first.value);
    const started = performance.now();
    let done = 0;
    let chunk = [first.value];
    const report = () => {
      if (done % 100_000 < batch) log(`  ${done.toLocaleString('en-US')} users…`);
    };
    if (engine === 'sqlite') {
      // Multi-row INSERTs of ≤ 32766/columns rows (SQLite's variable limit), a transaction per
      // 50 of them: the FTS trigger runs per row either way, the fsyncs per transaction.
      const perStatement = Math.floor(32766 / columns.length);
      const statements = new Map();
      const insert = (rs) => {
        let stmt = statements.get(rs.length);
        if (!stmt) {
          const tuple = `(${columns.map(() => '?').join(', ')})`;
          stmt = db.prepare(
            `INSERT INTO users (${columns.join(', ')}) VALUES ${Array(rs.length).fill(tuple).join(', ')}`,
          );
          statements.set(rs.length, stmt);
        }
        stmt.run(rs.flatMap((r) => columns.map((c) => r[c])));
      };
      const flush = db.transaction((rs) => {
        for (let i = 0; i < rs.length; i += perStatement) insert(rs.slice(i, i + perStatement));
      });
      for (const row of rows) {
        chunk.push(row);
        if (chunk.length === perStatement * 50) {
          flush(chunk);
          done += chunk.length;
          chunk = [];
          log(`  ${done.toLocaleString('en-US')} users…`);
        }
      }
      flush(chunk);
      done += chunk.length;
      // No ANALYZE: the store never runs one, and statistics change SQLite's plans (see README).
    } else {
      // One statement of `batch` rows at a time, each its own transaction (the trigger computes
      // the search vector and the generated sort keys per row).
      const flush = async (rs) => {
        const values = rs.flatMap((r) => columns.map((c) => r[c]));
        const tuples = rs.map(
          (_, i) => `(${columns.map((_, j) => `$${i * columns.length + j + 1}`).join(', ')})`,
        );
        await pool.query(
          `INSERT INTO users (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')}`,
          values,
        );
      };
      const limit = Math.min(batch, Math.floor(65535 / columns.length));
      for (const row of rows) {
        chunk.push(row);
        if (chunk.length === limit) {
          await flush(chunk);
          done += chunk.length;
          chunk = [];
          report();
        }
      }
      if (chunk.length > 0) await flush(chunk);
      done += chunk.length;
      await pool.query('VACUUM ANALYZE users');
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      engine,
      users: done,
      seconds,
      tenant: tenant.host,
      branch: branch.name,
      branchId: branch.id,
      adminToken: bootstrapped?.adminToken,
      location: store.location,
    };
  } finally {
    await store.close();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      users: { type: 'string', default: '1000000' },
      data: { type: 'string' },
      database: { type: 'string' },
      seed: { type: 'string', default: '1' },
    },
  });
  if (!values.data || !/^\d+$/.test(values.users)) {
    process.stderr.write(
      'usage: node bench/seed.mjs --users N --data DIR [--database postgres://…] [--seed S]\n',
    );
    process.exitCode = 2;
    return;
  }
  mkdirSync(values.data, { recursive: true });
  const users = Number(values.users);
  try {
    const made = await seedUsers({
      dataDir: values.data,
      database: values.database,
      users,
      seed: Number(values.seed),
      log: (l) => process.stderr.write(`${l}\n`),
    });
    const size = made.engine === 'sqlite' ? diskUse(values.data) : undefined;
    console.log(
      `seeded ${made.users.toLocaleString('en-US')} users into tenant '${made.tenant}', branch '${made.branch}' at ${made.location} ` +
        `in ${made.seconds.toFixed(1)} s (${Math.round(made.users / made.seconds).toLocaleString('en-US')} users/s)` +
        (size ? `; data dir now ${(size / 2 ** 20).toFixed(0)} MiB` : ''),
    );
    if (made.adminToken) console.log(`admin token (new store): ${made.adminToken}`);
  } catch (err) {
    process.stderr.write(`seed: ${err.message}\n`);
    process.exitCode = 1;
  }
}

/** The SQLite database's bytes (file and WAL) in a data dir. */
function diskUse(dir) {
  let total = 0;
  for (const name of ['roster.db', 'roster.db-wal']) {
    try {
      total += statSync(join(dir, name)).size;
    } catch {}
  }
  return total;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
