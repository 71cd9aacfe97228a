/**
 * `roster check --deadline SECONDS` bounds the whole run, retries included (#24 item 7): a
 * service that answers the first step and then never again, and a deadline the test fires
 * once the stuck request has arrived (an injected clock: nothing here waits for real time).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type CheckOptions, register, runCheck } from '../../../../src/cli/commands/check/index.js';
import type { Deps } from '../../../../src/cli/context.js';
import { type FakeServer, startServer } from '../../../helpers/fake-server.js';
import { scratch } from '../../../helpers/scratch.js';
import { fakeIO, parseWith } from '../../helpers.js';

const tmp = scratch();
let stuck: FakeServer;
let arrived: () => void;
const stuckRequest = new Promise<void>((resolve) => {
  arrived = resolve;
});
beforeAll(async () => {
  stuck = await startServer((req, res) => {
    // No catalog (as the real platform), then silence from the first users request on.
    if (req.url === '/api') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"statusCode":404,"identifier":40408,"message":"no","type":"NotFoundException"}');
      return;
    }
    arrived();
  });
});
afterAll(async () => {
  await stuck.close();
  await tmp.cleanup();
});

test('the deadline cuts the step in flight, names it, and skips the rest; exit 1', async () => {
  const fake = fakeIO();
  const deps: Deps = {
    io: fake.io,
    env: {
      ROSTER_BASE_URL: stuck.baseUrl,
      ROSTER_TOKEN: 'dA==',
      ROSTER_CONFIG_DIR: tmp.temp('roster-deadline-config-'),
    },
    cleanups: [],
  };
  let asked: number | undefined;
  const deadline = (ms: number) => {
    asked = ms;
    const controller = new AbortController();
    // The clock "runs out" once the request that will never be answered is at the server.
    void stuckRequest.then(() => controller.abort());
    return { signal: controller.signal, cancel: () => {} };
  };
  const opts: CheckOptions = { deadline: 7, globals: { output: 'json' } };
  let thrown: unknown;
  try {
    await runCheck(opts, deps, deadline);
  } catch (err) {
    thrown = err;
  } finally {
    for (const fn of deps.cleanups ?? []) await fn();
  }
  expect(asked).toBe(7000);
  expect((thrown as { exitCode?: number }).exitCode).toBe(1);
  expect((thrown as Error).message).toBe(
    "check stopped by --deadline 7 s during 'authenticate: GET /users?limit=1'",
  );
  const report = JSON.parse(fake.out());
  const results = report.steps.map((s: { name: string; result: string }) => [s.name, s.result]);
  expect(results[0]).toEqual(['reach the service: GET /api', 'not offered']);
  expect(results[1]).toEqual(['authenticate: GET /users?limit=1', 'fail']);
  expect(report.steps[1].detail).toBe('cut by --deadline 7 s');
  expect(results.slice(2).every(([, r]: string[]) => r === 'skip')).toBe(true);
  expect(report.steps[2].detail).toBe('skipped: --deadline 7 s reached');
});

test('--deadline defaults to 60 seconds and takes a number of seconds above 0', async () => {
  const parse = (...args: string[]) => parseWith<CheckOptions>(register, ['check', ...args]);
  expect((await parse()).deadline).toBe(60);
  expect((await parse('--deadline', '2.5')).deadline).toBe(2.5);
  await expect(parse('--deadline', '0')).rejects.toThrow('above 0');
  await expect(parse('--deadline', 'soon')).rejects.toThrow('above 0');
});
