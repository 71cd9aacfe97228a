/** Preview slots are shared fairly: one token's slow files cannot starve another tenant's. */
import { expect, test } from 'vitest';
import { previewScheduler } from '../../../src/server/media/preview-scheduler.js';

/** A task the test finishes by hand, recording that it started. */
function gate(started: string[], name: string) {
  let open!: () => void;
  const done = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    task: async () => {
      started.push(name);
      await done;
      return name;
    },
    open,
  };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a key holds at most half the slots, leaving room for another key', async () => {
  const started: string[] = [];
  const run = previewScheduler({ slots: 2, maxQueuedPerKey: 10, maxWaitMs: 60_000 });
  const a = Array.from({ length: 4 }, (_, i) => gate(started, `a${i}`));
  const aRuns = a.map((g) => run('token-a', g.task));
  await tick();
  expect(started).toEqual(['a0']);
  const b = gate(started, 'b0');
  const bRun = run('token-b', b.task);
  await tick();
  expect(started).toEqual(['a0', 'b0']);
  b.open();
  expect(await bRun).toEqual({ ran: true, value: 'b0' });
  await tick();
  // a may not take the last free slot: it stays for whoever comes next.
  expect(started).toEqual(['a0', 'b0']);
  a[0]!.open();
  await tick();
  expect(started).toEqual(['a0', 'b0', 'a1']);
  for (const g of a) g.open();
  expect((await Promise.all(aRuns)).map((r) => r.ran)).toEqual([true, true, true, true]);
});

test('waiting keys take turns (round robin), not first come first served', async () => {
  const started: string[] = [];
  const run = previewScheduler({ slots: 1, maxQueuedPerKey: 10, maxWaitMs: 60_000 });
  const first = gate(started, 'a0');
  const runs = [run('a', first.task)];
  const rest = [gate(started, 'a1'), gate(started, 'a2'), gate(started, 'b0'), gate(started, 'c0')];
  runs.push(run('a', rest[0]!.task), run('a', rest[1]!.task));
  runs.push(run('b', rest[2]!.task), run('c', rest[3]!.task));
  first.open();
  for (const g of rest) {
    await tick();
    g.open();
  }
  await Promise.all(runs);
  expect(started).toEqual(['a0', 'b0', 'c0', 'a1', 'a2']);
});

test('past its queue bound a key is answered at once without running the task', async () => {
  const started: string[] = [];
  const run = previewScheduler({ slots: 1, maxQueuedPerKey: 1, maxWaitMs: 60_000 });
  const busy = gate(started, 'busy');
  const running = run('a', busy.task);
  const queued = run('a', gate(started, 'queued').task);
  expect(await run('a', gate(started, 'over').task)).toEqual({ ran: false, reason: 'queue full' });
  busy.open();
  await running;
  await tick();
  expect(started).toEqual(['busy', 'queued']);
  void queued;
});

test('a task that waits longer than maxWaitMs is given up (injected timer)', async () => {
  const started: string[] = [];
  const timers: (() => void)[] = [];
  const run = previewScheduler({
    slots: 1,
    maxQueuedPerKey: 5,
    maxWaitMs: 10_000,
    setTimer: (fn) => {
      timers.push(fn);
      return () => {};
    },
  });
  const busy = gate(started, 'busy');
  void run('a', busy.task);
  const waiting = run('b', gate(started, 'late').task);
  expect(timers).toHaveLength(1);
  timers[0]!();
  expect(await waiting).toEqual({ ran: false, reason: 'waited too long' });
  busy.open();
  await tick();
  expect(started).toEqual(['busy']);
});

test('with more slots a lone key may use all but one of them', async () => {
  const started: string[] = [];
  const run = previewScheduler({ slots: 4, maxQueuedPerKey: 10, maxWaitMs: 60_000 });
  const a = Array.from({ length: 5 }, (_, i) => gate(started, `a${i}`));
  const runs = a.map((g) => run('a', g.task));
  await tick();
  expect(started).toEqual(['a0', 'a1', 'a2']);
  const b = gate(started, 'b0');
  const bRun = run('b', b.task);
  await tick();
  expect(started).toEqual(['a0', 'a1', 'a2', 'b0']);
  b.open();
  for (const g of a) g.open();
  await Promise.all([bRun, ...runs]);
  expect(started).toHaveLength(6);
});
