/**
 * A burst of writes is fanned out in a few passes, not one per write: each pass is a
 * transaction of its own (on SQLite a commit, once an endpoint exists), which a burst paid for
 * every write it made. In-process on the run's backend, to a real receiver on a loopback port;
 * the count of fan-outs is taken by wrapping the store's own (it still runs).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parseAllowList } from '../../../src/server/webhooks/egress.js';
import { eventually } from '../../helpers/eventually.js';
import { jsonBody, startServer, type TestServer } from '../../helpers/server.js';
import { type Receiver, startReceiver } from '../../helpers/webhook-receiver.js';

const FOLLOW_MS = 200;
const WRITES = 30;

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer({
    webhooksAllowHttp: true,
    webhooksAllow: parseAllowList('127.0.0.1/32'),
    // No poll in the test's time: every fan-out is one the events started.
    webhookTuning: { pollMs: 600_000, followMs: FOLLOW_MS, timeoutMs: 1000 },
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

test(`${WRITES} writes at once are fanned out in passes at most ${FOLLOW_MS} ms apart, each delivered once`, async () => {
  const res = await server.req('POST', '/api/webhooks', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, types: ['user.created'] }),
  });
  expect(res.status, res.text).toBe(201);
  const webhooks = server.store.webhooks;
  const fanOut = webhooks.fanOut.bind(webhooks);
  let passes = 0;
  webhooks.fanOut = (...args) => {
    passes++;
    return fanOut(...args);
  };
  const started = performance.now();
  const made = await Promise.all(
    Array.from({ length: WRITES }, (_, i) =>
      server.req('POST', '/api/users', jsonBody({ email: `burst-${i}@example.com` })),
    ),
  );
  expect(made.map((r) => r.status)).toEqual(made.map(() => 201));
  await eventually(() => receiver.received.length >= WRITES);
  const elapsed = performance.now() - started;
  const ids = new Set(made.map((r) => r.json.id));
  expect(new Set(receiver.received.map((r) => JSON.parse(r.body).data.target.id))).toEqual(ids);
  // A pass that made deliveries is followed by one more (its page may have ended early), so
  // two fan-outs per window, the first window starting at once.
  expect(passes).toBeLessThanOrEqual(2 * (1 + Math.ceil(elapsed / FOLLOW_MS)) + 1);
  expect(passes).toBeLessThan(WRITES);
});
