/**
 * Settled webhook deliveries go with the events' retention, in batches; pending ones stay
 * whatever their age (they may still be delivered). On the backend the run chooses.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { gentlePace, pruneEvents } from '../../../src/server/events/retention.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const DAY = 86_400_000;
// SQLite's serve paces its batches; the clock and the sleep here take no time.
const paced = gentlePace({ clock: () => 0, sleep: async () => {} });

test.each([
  ['in batches back to back', {}],
  ['paced', { pace: paced }],
])(
  'delivered and given-up deliveries older than the retention are pruned, pending ones kept (%s)',
  async (_, pacing) => {
    const res = await server.req('POST', '/api/webhooks', {
      headers: { 'content-type': 'application/json' },
      // An endpoint the worker cannot reach here (not allowed): its deliveries stay as made.
      body: JSON.stringify({ url: 'https://hooks.example.com/in', types: ['user.*'] }),
    });
    expect(res.status, res.text).toBe(201);
    await server.req('PATCH', `/api/webhooks/${res.json.id}`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    });
    const tenant = (await server.store.tenants.byHost('*'))!;
    const branch = (await server.store.branches.byName(tenant.id, 'main'))!;
    const { webhooks } = server.store;
    // The prune below runs 100 days on, so "old" is now and the newest 100 days on: the
    // server's own pruner (running at its start, on today's clock) leaves them all alone.
    const later = Date.now() + 100 * DAY;
    const made = [];
    for (const [i, status] of (
      ['delivered', 'failed', 'pending', 'delivered'] as const
    ).entries()) {
      const at = i === 3 ? later : Date.now();
      const d = (await webhooks.addDelivery(
        branch.id,
        res.json.id,
        { eventId: `ev-${i}`, type: 'webhook.test', body: '{}' },
        at,
      ))!;
      if (status !== 'pending') {
        const claimed = {
          ...d,
          url: '',
          secret: '',
          previous_secret: null,
          previous_expires_at: null,
          retired_secrets: null,
          failing_since: null,
        };
        await webhooks.settle(
          claimed,
          {
            status,
            at,
            httpStatus: 200,
            error: null,
            durationMs: 1,
            nextAttemptAt: null,
            succeeded: true,
          },
          { actor: { type: 'system', name: 'test' }, channel: 'system', requestId: 't' },
        );
      }
      made.push(d.id);
    }
    const pruned = await pruneEvents({
      // The deliveries alone: the log's events 100 days on are not this test's.
      events: { ...server.store.events, prune: async () => 0 },
      webhooks,
      now: () => later,
      batch: 1,
      ...pacing,
    });
    expect(pruned).toBe(2);
    const left = (await webhooks.deliveries(branch.id, res.json.id, 10))!.map((d) => d.event_id);
    expect(left.sort()).toEqual(['ev-2', 'ev-3']);
  },
);
