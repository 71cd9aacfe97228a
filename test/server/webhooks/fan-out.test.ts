/**
 * The worker over a backlog longer than one fan-out page (events written while no worker ran:
 * a restart after a busy night), on the backend the run chooses: a worker of the test's own on
 * a store with no server, sending to a real receiver on a loopback port. Its poll is an hour,
 * so only the worker's own rule (fan out again while a page came back full) can drain the
 * backlog within the test.
 */
import { afterEach, expect, test } from 'vitest';
import { signatures } from '../../../src/contract/webhook-signature.js';
import { sendAttempt } from '../../../src/server/webhooks/attempt.js';
import { guardedDispatcher, parseAllowList } from '../../../src/server/webhooks/egress.js';
import { nextRetryDelay } from '../../../src/server/webhooks/schedule.js';
import { type WebhookWorker, webhookWorker } from '../../../src/server/webhooks/worker.js';
import type { Store } from '../../../src/store/store.js';
import { TEST_AUDIT } from '../../helpers/audit.js';
import { openTestStore } from '../../helpers/database.js';
import { eventually } from '../../helpers/eventually.js';
import { scratch } from '../../helpers/scratch.js';
import { userRow } from '../../helpers/user-row.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

const dirs = scratch();
const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
  await dirs.cleanup();
});

const PAGE = 2;

async function setUp(types: string) {
  const { store, dispose } = await openTestStore(dirs.temp('wh-fan-out-'));
  open.push(dispose);
  await store.bootstrap();
  const tenant = (await store.tenants.byHost('*'))!;
  const branch = (await store.branches.byName(tenant.id, 'main'))!;
  const receiver = await startReceiver();
  open.push(() => receiver.close());
  const at = new Date().toISOString();
  const hook = await store.webhooks.create(
    {
      id: '65f0000000000000000000bb',
      tenant_id: tenant.id,
      branch_id: branch.id,
      url: `${receiver.url}/in`,
      types,
      description: '',
      enabled: true,
      disabled_reason: null,
      secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}`,
      previous_secret: null,
      previous_expires_at: null,
      retired_secrets: null,
      created_at: at,
      updated_at: at,
    },
    TEST_AUDIT,
  );
  const addUser = () =>
    store.users.insert(userRow({ tenant_id: tenant.id, branch_id: branch.id }), TEST_AUDIT);
  const addToken = () =>
    store.tokens.create(branch.id, 'backlog', ['users:read'], ['api'], TEST_AUDIT);
  const eventIds = async (type: string) =>
    (await store.events.list({ branchId: branch.id, limit: 1000 })).rows
      .filter((e) => e.type === type)
      .map((e) => e.id);
  const deliveries = async () =>
    ((await store.webhooks.deliveries(branch.id, hook.id, 1000)) ?? []).reverse();
  return { store, receiver, addUser, addToken, eventIds, deliveries };
}

function startWorker(store: Store, logs: string[]): WebhookWorker {
  const dispatcher = guardedDispatcher({ allowHttp: true, allow: parseAllowList('127.0.0.1/32') });
  const worker = webhookWorker({
    store,
    send: (request) => sendAttempt(request, { dispatcher, timeoutMs: 5000 }),
    sign: signatures,
    nextDelay: nextRetryDelay,
    log: (line) => logs.push(line),
    fanOutBatch: PAGE,
    pollMs: 3_600_000,
  });
  open.push(() => worker.stop());
  worker.kick();
  return worker;
}

test("a backlog of several pages: every event gets exactly one delivery row, in the log's order, each delivered once", async () => {
  const { store, receiver, addUser, eventIds, deliveries } = await setUp('user.*');
  for (let i = 0; i < 3 * PAGE + 1; i++) await addUser();
  const ids = await eventIds('user.created');
  expect(ids).toHaveLength(3 * PAGE + 1);
  const logs: string[] = [];
  startWorker(store, logs);
  for (const id of ids) await receiver.next((r) => r.headers['webhook-id'] === id);
  await eventually(async () => (await deliveries()).every((d) => d.status === 'delivered'));
  const made = await deliveries();
  expect(made.map((d) => d.event_id)).toEqual(ids);
  expect(made.map((d) => Number(d.attempts))).toEqual(ids.map(() => 1));
  expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual([...ids].sort());
  expect(logs).toEqual([]);
});

test('a backlog whose first pages hold no event the endpoint takes: the events after them are still delivered', async () => {
  const { store, receiver, addUser, addToken, eventIds, deliveries } = await setUp('user.*');
  for (let i = 0; i < 2 * PAGE; i++) await addToken();
  await addUser();
  const [id] = await eventIds('user.created');
  startWorker(store, []);
  await receiver.next((r) => r.headers['webhook-id'] === id);
  expect((await deliveries()).map((d) => d.event_id)).toEqual([id]);
});
