/**
 * Webhooks on PostgreSQL when the connection to the database is cut mid-delivery (a relay that
 * resets every connection, then loses the answer to the attempt's settlement, so it is never
 * committed): nothing is lost — the delivery's lease runs out and it is sent again, with the
 * same webhook-id, and then recorded as delivered. The worker's clock is moved past the lease
 * instead of waiting for it. Runs in the PostgreSQL project only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../src/server/config.js';
import { parseAllowList } from '../../src/server/webhooks/egress.js';
import { databaseTarget, openStore } from '../../src/store/open.js';
import { freshDatabase } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { pgRelay } from '../helpers/pg-relay.js';
import { jsonBody, requester } from '../helpers/server.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

test('a connection cut mid-delivery loses nothing: the unsettled delivery is sent again after its lease', async () => {
  const db = await freshDatabase();
  cleanups.push(db.drop);
  const relay = await pgRelay(db.url);
  cleanups.push(() => relay.close());
  const dir = mkdtempSync(join(tmpdir(), 'roster-pg-wh-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const store = await openStore({ dataDir: dir, target: databaseTarget(relay.url, dir) });
  const adminToken = (await store.bootstrap())!.adminToken;
  let skew = 0;
  const logs: string[] = [];
  const app = await createApp({
    store,
    config: {
      dataDir: dir,
      vendor: 'service',
      maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
      webhooksAllowHttp: true,
      webhooksAllow: parseAllowList('127.0.0.1/32'),
      webhookTuning: { now: () => Date.now() + skew, pollMs: 20 },
    },
    log: (l) => logs.push(l),
  });
  const { url } = await app.listen(0);
  cleanups.push(async () => {
    await app.close(1000);
    await store.close();
  });
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  let held: ServerResponse | undefined;
  receiver.answer((_q, res) => {
    held = res;
  });
  const req = requester(url, adminToken);
  const hook = await req('POST', '/api/webhooks', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${receiver.url}/in`, types: ['user.created'] }),
  });
  expect(hook.status, hook.text).toBe(201);
  const user = await req('POST', '/api/users', jsonBody({ email: 'cut@example.com' }));
  const eventId = (await req('GET', `/api/events?target=${user.json.id}`)).json.data[0].id;
  await receiver.next((r) => r.headers['webhook-id'] === eventId);

  // Mid-delivery: every connection reset, and the settlement's answer lost (never committed).
  relay.reset();
  relay.state.loseAnswerTo = 'UPDATE webhook_deliveries SET status';
  receiver.answer((_q, res) => res.writeHead(204).end());
  held!.writeHead(204).end();
  await eventually(() => relay.state.loseAnswerTo === undefined);

  skew += 61_000; // past the lease
  await eventually(
    () => receiver.received.filter((r) => r.headers['webhook-id'] === eventId).length === 2,
  );
  await eventually(async () => {
    const d = (await req('GET', `/api/webhooks/${hook.json.id}/deliveries`)).json.data;
    return d.length === 1 && d[0].status === 'delivered';
  });
});
