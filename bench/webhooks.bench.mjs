// Webhooks bench (issue 40): deliveries per second to one local receiver, and commit-to-receipt
// latency (the event's occurredAt to the receiver's clock, one machine), on a fresh
// `roster serve` per backend (SQLite; PostgreSQL when ROSTER_BENCH_DATABASE or
// ROSTER_TEST_DATABASE names a server). The goals: >= 200 deliveries/s, p99 < 2 s.
// Three figures: a burst (the receiver's rate follows the write rate), paced writes (latency),
// and a backlog: the receiver stalls (answers each request only after HOLD_MS, under the
// attempt's 15 s timeout, so nothing fails) while BACKLOG users are made, then answers at once;
// deliveries/s from then until it has them all is the worker's own rate, whatever the writes'.
// Nothing asserted.
import { createServer } from 'node:http';
import { request } from 'undici';
import { benchDatabase, fmt, heading, line, serve, tempDir } from './lib.mjs';

const BURST = Number(process.env.BENCH_WEBHOOK_BURST ?? 2000);
const PACED = Number(process.env.BENCH_WEBHOOK_PACED ?? 300);
const BACKLOG = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 2000);
const PACE_MS = 20;
const HOLD_MS = 10_000;
const IN_FLIGHT = 16;
const V3 = 'application/vnd.service.accessors.user.v3+json';

const quantile = (xs, q) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

function receiver() {
  const got = new Map();
  let onCount = () => {};
  /** While stalled: answers waiting, each sent after HOLD_MS or at release(). */
  let held;
  const answer = (id, body, res) => {
    const at = Date.now();
    if (!got.has(id)) got.set(id, { at, body });
    res.writeHead(204).end();
    onCount(got.size);
  };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const id = req.headers['webhook-id'];
      if (!held) return answer(id, body, res);
      const h = { send: () => answer(id, body, res) };
      h.timer = setTimeout(() => {
        held.delete(h);
        h.send();
      }, HOLD_MS);
      held.add(h);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/in`,
        got,
        until: (n) =>
          new Promise((done) => {
            if (got.size >= n) return done();
            onCount = (size) => size >= n && done();
          }),
        stall: () => {
          held = new Set();
        },
        release: () => {
          const waiting = held;
          held = undefined;
          for (const h of waiting) {
            clearTimeout(h.timer);
            h.send();
          }
        },
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

async function runOn(backend, database) {
  heading(`Webhooks on ${backend}: one local receiver`);
  const server = await serve(tempDir('roster-bench-webhooks-'), undefined, [
    '--webhooks-allow',
    '127.0.0.1/32',
    '--webhooks-allow-http',
    ...(database ? ['--database', database] : []),
  ]);
  const auth = { authorization: `Basic ${server.token}` };
  const r = await receiver();
  let n = 0;
  const createUser = async () => {
    const res = await request(`${server.origin}/api/users`, {
      method: 'POST',
      headers: { ...auth, accept: V3, 'content-type': V3 },
      body: JSON.stringify({ email: `wh${n++}@bench.example`, sendMail: false }),
    });
    await res.body.dump();
    if (res.statusCode !== 201) throw new Error(`POST /api/users: ${res.statusCode}`);
  };
  try {
    const hook = await request(`${server.origin}/api/webhooks`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: r.url, types: ['user.created'] }),
    });
    if (hook.statusCode !== 201) throw new Error(`POST /api/webhooks: ${hook.statusCode}`);
    await hook.body.dump();

    // A burst: writes as fast as 16 clients make them; the receiver's rate over its window.
    const started = Date.now();
    let left = BURST;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (left-- > 0) await createUser();
      }),
    );
    const written = Date.now();
    await r.until(BURST);
    const times = [...r.got.values()].map((g) => g.at);
    const window = (Math.max(...times) - Math.min(...times)) / 1000;
    line(
      `burst of ${BURST} user.created: writes`,
      `${fmt(BURST / ((written - started) / 1000), 0)}/s`,
    );
    line(
      'burst: deliveries received',
      `${fmt(BURST / window, 0)}/s (last ${fmt((Math.max(...times) - written) / 1000, 2)} s after the last write)`,
    );

    // Paced: one write every 20 ms; commit (occurredAt) to receipt.
    const before = r.got.size;
    for (let i = 0; i < PACED; i++) {
      await createUser();
      await new Promise((res) => setTimeout(res, PACE_MS));
    }
    await r.until(before + PACED);
    const lat = [...r.got.values()].slice(before).map((g) => g.at - Date.parse(g.body.timestamp));
    line(
      `paced (${PACED}, one per ${PACE_MS} ms): commit to receipt`,
      `p50 ${fmt(quantile(lat, 0.5), 0)} ms  p99 ${fmt(quantile(lat, 0.99), 0)} ms  max ${fmt(Math.max(...lat), 0)} ms`,
    );

    // A backlog: the receiver stalls while BACKLOG users are made, then answers at once.
    const target = r.got.size + BACKLOG;
    r.stall();
    left = BACKLOG;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (left-- > 0) await createUser();
      }),
    );
    // The last write's fan-out: its own event wakes the worker at once; give it a moment.
    await new Promise((res) => setTimeout(res, 500));
    const owed = target - r.got.size;
    const released = Date.now();
    r.release();
    await r.until(target);
    line(
      `backlog of ${owed} (receiver stalled, then answering)`,
      `${fmt(owed / ((Date.now() - released) / 1000), 0)}/s`,
    );
  } finally {
    await server.stop();
    await r.close();
  }
}

await runOn('SQLite');
const database = await benchDatabase();
if (database) {
  try {
    await runOn('PostgreSQL', database.url);
  } finally {
    await database.drop?.();
  }
}
