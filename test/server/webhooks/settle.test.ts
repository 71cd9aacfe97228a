/**
 * The worker's group commit (worker.ts writeSettlements → settleAll): several attempts' outcomes
 * in one transaction are written as `settle` would write them one after the other, in the order
 * given (the order the attempts ended). So an endpoint's failing state is its last outcome's: a
 * failure then a success leaves it not failing; a success then a failure leaves it failing since
 * that failure, not since one before the success. On the backend the run chooses.
 */
import { describe, expect, test } from 'vitest';
import type { Settled, Settlement } from '../../../src/store/webhook-types.js';
import { serverForFile } from '../../helpers/server.js';

const server = await serverForFile();
const audit = {
  actor: { type: 'system', name: 'test' },
  channel: 'system',
  requestId: 't',
} as const;

/** A disabled endpoint (the server's worker leaves it alone) and a way to settle its deliveries. */
async function endpoint() {
  const res = await server.req('POST', '/api/webhooks', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://hooks.example.com/in', types: ['user.*'] }),
  });
  expect(res.status, res.text).toBe(201);
  const id: string = res.json.id;
  await server.req('PATCH', `/api/webhooks/${id}`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ enabled: false }),
  });
  const tenant = (await server.store.tenants.byHost('*'))!;
  const branch = (await server.store.branches.byName(tenant.id, 'main'))!;
  const { webhooks } = server.store;
  let n = 0;
  const outcome = async (succeeded: boolean, at: number): Promise<Settled> => {
    const d = (await webhooks.addDelivery(
      branch.id,
      id,
      { eventId: `ev-${++n}`, type: 'webhook.test', body: '{}' },
      at,
    ))!;
    const settlement: Settlement = succeeded
      ? {
          status: 'delivered',
          at,
          httpStatus: 204,
          error: null,
          durationMs: 1,
          nextAttemptAt: null,
          succeeded,
        }
      : {
          status: 'pending',
          at,
          httpStatus: 500,
          error: 'the receiver answered 500',
          durationMs: 1,
          nextAttemptAt: at + 5000,
          succeeded,
        };
    const delivery = {
      ...d,
      url: '',
      secret: '',
      previous_secret: null,
      previous_expires_at: null,
      retired_secrets: null,
      failing_since: null,
    };
    return { delivery, settlement };
  };
  const failingSince = async () => {
    const row = (await webhooks.find(branch.id, id))!;
    return row.failing_since === null ? null : Number(row.failing_since);
  };
  const stored = async (deliveryId: string) =>
    (await webhooks.deliveries(branch.id, id, 100))!.find((d) => d.id === deliveryId)!;
  const retry = (deliveryId: string, at: number) => webhooks.retry(branch.id, id, deliveryId, at);
  return { webhooks, outcome, failingSince, stored, retry };
}

const T = Date.UTC(2026, 11, 1);

test('a failure then a success, in one batch: the endpoint is not failing', async () => {
  const { webhooks, outcome, failingSince } = await endpoint();
  await webhooks.settleAll([await outcome(false, T), await outcome(true, T + 1)], audit);
  expect(await failingSince()).toBeNull();
});

test('a success then a failure, in one batch: failing since that failure', async () => {
  const { webhooks, outcome, failingSince } = await endpoint();
  await webhooks.settleAll([await outcome(true, T), await outcome(false, T + 1)], audit);
  expect(await failingSince()).toBe(T + 1);
});

test('already failing: a success then a failure restarts the count at that failure; failures alone keep the first', async () => {
  const { webhooks, outcome, failingSince } = await endpoint();
  await webhooks.settleAll([await outcome(false, T)], audit);
  expect(await failingSince()).toBe(T);
  await webhooks.settleAll([await outcome(false, T + 1), await outcome(false, T + 2)], audit);
  expect(await failingSince()).toBe(T);
  await webhooks.settleAll(
    [await outcome(false, T + 3), await outcome(true, T + 4), await outcome(false, T + 5)],
    audit,
  );
  expect(await failingSince()).toBe(T + 5);
});

describe('a retry asked for while the attempt is in flight (POST …/deliveries/{id}/retry)', () => {
  test("is kept when the attempt fails: due at the retry, not at the failure's backoff", async () => {
    const { webhooks, outcome, stored, retry } = await endpoint();
    const failed = await outcome(false, T);
    await retry(failed.delivery.id, T + 100);
    const as = await webhooks.settleAll([failed], audit);
    // The worker is told where the delivery stands (its log line says the retry stands).
    expect(as.get(failed.delivery.id)).toEqual({ status: 'pending', nextAttemptAt: T + 100 });
    expect(await stored(failed.delivery.id)).toMatchObject({
      status: 'pending',
      next_attempt_at: T + 100,
      attempts: 1,
      last_status: 500,
    });
  });

  test('is kept when that attempt was the last one', async () => {
    const { webhooks, outcome, stored, retry } = await endpoint();
    const last = await outcome(false, T);
    last.settlement = { ...last.settlement, status: 'failed', nextAttemptAt: null };
    await retry(last.delivery.id, T + 100);
    const as = await webhooks.settleAll([last], audit);
    expect(as.get(last.delivery.id)).toEqual({ status: 'pending', nextAttemptAt: T + 100 });
    expect(await stored(last.delivery.id)).toMatchObject({
      status: 'pending',
      next_attempt_at: T + 100,
    });
  });

  test('is kept when it came in the very millisecond the claim read', async () => {
    const { webhooks, outcome, stored, retry } = await endpoint();
    const last = await outcome(false, T);
    last.settlement = { ...last.settlement, status: 'failed', nextAttemptAt: null };
    await retry(last.delivery.id, T);
    await webhooks.settleAll([last], audit);
    expect(await stored(last.delivery.id)).toMatchObject({ status: 'pending', next_attempt_at: T });
  });

  test('an attempt settled twice (a lease ran out): a pending delivery always has a due time', async () => {
    const { webhooks, outcome, stored, retry } = await endpoint();
    for (const retried of [false, true]) {
      const claimed = await outcome(false, T);
      if (retried) await retry(claimed.delivery.id, T + 100);
      const delivered: Settled = {
        delivery: claimed.delivery,
        settlement: {
          ...claimed.settlement,
          status: 'delivered',
          succeeded: true,
          nextAttemptAt: null,
        },
      };
      await webhooks.settleAll([delivered], audit);
      await webhooks.settleAll([claimed], audit);
      const row = await stored(claimed.delivery.id);
      expect(row.status === 'pending' && row.next_attempt_at === null, JSON.stringify(row)).toBe(
        false,
      );
    }
  });

  test('is done by the attempt when it succeeds; without a retry, a failure waits its backoff', async () => {
    const { webhooks, outcome, stored, retry } = await endpoint();
    const delivered = await outcome(true, T);
    await retry(delivered.delivery.id, T + 100);
    const failed = await outcome(false, T);
    const as = await webhooks.settleAll([delivered, failed], audit);
    expect(Object.fromEntries(as)).toEqual({
      [delivered.delivery.id]: { status: 'delivered', nextAttemptAt: null },
      [failed.delivery.id]: { status: 'pending', nextAttemptAt: T + 5000 },
    });
    expect(await stored(delivered.delivery.id)).toMatchObject({ status: 'delivered' });
    expect(await stored(failed.delivery.id)).toMatchObject({
      status: 'pending',
      next_attempt_at: T + 5000,
    });
  });
});
