/**
 * The paced pruner (the one SQLite's serve runs: its statements block the event loop) against a
 * real server, on the backend the run chooses: between two batches it holds nothing, so a write
 * issued while it prunes is answered before it ends; and it still prunes every expired event.
 * The clock and the sleep are the test's: the first pause lasts until the test ends it.
 */
import { expect, test } from 'vitest';
import { gentlePace, pruneEvents } from '../../../src/server/events/retention.js';
import { jsonBody, serverForFile } from '../../helpers/server.js';

const server = await serverForFile();
const DAY = 86_400_000;

test('a write issued while the paced pruner runs is answered before the pruning ends, and every expired event still goes', async () => {
  for (let i = 0; i < 30; i++) {
    const res = await server.req('POST', '/api/users', jsonBody({ email: `p-${i}@example.com` }));
    expect(res.status, res.text).toBe(201);
  }
  const tenant = (await server.store.tenants.byHost('*'))!;
  const branch = (await server.store.branches.byName(tenant.id, 'main'))!;
  const log = async () =>
    (await server.store.events.list({ branchId: branch.id, limit: 1000 })).rows;
  const logged = (await log()).length;
  expect(logged).toBeGreaterThan(30);

  let tick = 0;
  let endPause!: () => void;
  let paused!: () => void;
  const firstPause = new Promise<void>((resolve) => {
    paused = resolve;
  });
  const pauses: number[] = [];
  const pace = gentlePace({
    // Each batch "takes" 1 ms; the first is 16 events, so more batches follow.
    clock: () => tick++,
    sleep: (ms) => {
      pauses.push(ms);
      if (pauses.length > 1) return Promise.resolve();
      paused();
      return new Promise<void>((resolve) => {
        endPause = resolve;
      });
    },
  });
  let ended = false;
  // A hundred days on: every event so far is past the 90 days kept, and so is the write's.
  const pruning = pruneEvents({
    events: server.store.events,
    now: () => Date.now() + 100 * DAY,
    pace,
  }).then((n) => {
    ended = true;
    return n;
  });
  await firstPause;
  const left = (await log()).length;
  expect(left).toBeGreaterThan(0);
  expect(left).toBeLessThan(logged);
  const write = await server.req('POST', '/api/users', jsonBody({ email: 'during@example.com' }));
  expect(write.status, write.text).toBe(201);
  expect(ended).toBe(false);
  endPause();
  expect(await pruning).toBe(logged + 1);
  expect(await log()).toEqual([]);
  expect(pauses.length).toBeGreaterThan(1);
});
