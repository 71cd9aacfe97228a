import { afterEach, expect, test } from 'vitest';
import { installSignals, onInterrupt, type StopSignal } from '../../src/cli/signals.js';

const undo: (() => void)[] = [];
afterEach(() => {
  for (const fn of undo.splice(0).reverse()) fn();
});

function setup() {
  let clock = 0;
  const stopped: StopSignal[] = [];
  const handled: StopSignal[] = [];
  undo.push(
    installSignals(
      (s) => stopped.push(s),
      () => clock,
    ),
  );
  return {
    stopped,
    handled,
    listen: () => undo.push(onInterrupt((s) => handled.push(s))),
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

test('without a command handler the first signal stops at once', () => {
  const t = setup();
  process.emit('SIGTERM');
  expect(t.stopped).toEqual(['SIGTERM']);
});

test('the first signal goes to the command, a second one stops at once', () => {
  const t = setup();
  t.listen();
  process.emit('SIGINT');
  expect(t.handled).toEqual(['SIGINT']);
  expect(t.stopped).toEqual([]);
  t.advance(1000);
  process.emit('SIGINT');
  expect(t.stopped).toEqual(['SIGINT']);
});

test("a library's immediate echo of the signal is not a second Ctrl-C", () => {
  const t = setup();
  t.listen();
  process.emit('SIGTERM');
  t.advance(5);
  process.emit('SIGTERM');
  expect(t.handled).toEqual(['SIGTERM']);
  expect(t.stopped).toEqual([]);
});
