/** /healthz and /readyz, and what a drain does to them, through the real app. */
import { afterEach, expect, test } from 'vitest';
import { createApp } from '../../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../../src/server/config.js';
import { openTestStore } from '../../helpers/database.js';
import { scratch } from '../../helpers/scratch.js';
import { serverForTest } from '../../helpers/server.js';

const dirs = scratch();

afterEach(dirs.cleanup);

test('both answer without a token; /readyz asks the database', async () => {
  const s = await serverForTest();
  const health = await s.req('GET', '/healthz', { token: null });
  expect(health.status).toBe(200);
  expect(health.json).toEqual({ status: 'ok' });
  const ready = await s.req('GET', '/readyz', { token: null });
  expect(ready.status).toBe(200);
  expect(ready.json).toEqual({ status: 'ready' });
  expect(ready.headers['cache-control']).toBe('no-store');
});

test('a drain fails /readyz at once, keeps answering for the drain delay, then closes', async () => {
  const s = await serverForTest({ drainDelayMs: 60_000 });
  let wake!: () => void;
  const slept: number[] = [];
  const closing = s.app!.close(1000, (ms) => {
    slept.push(ms);
    return new Promise<void>((r) => {
      wake = r;
    });
  });
  const ready = await s.req('GET', '/readyz', { token: null });
  expect(ready.status).toBe(503);
  expect(ready.json).toEqual({ status: 'draining' });
  expect(ready.headers.connection).toBe('close');
  // Still serving while the balancer notices.
  expect((await s.req('GET', '/api/users')).status).toBe(200);
  expect(slept).toEqual([60_000]);
  wake();
  await closing;
  await expect(s.req('GET', '/healthz', { token: null })).rejects.toThrow();
});

test('idle keep-alive connections stay open 65 s by default, above a balancer’s idle timeout', async () => {
  const dataDir = dirs.temp('roster-keepalive-');
  const { store, dispose } = await openTestStore(dataDir);
  const config = { dataDir, vendor: 'service', maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES };
  for (const [given, expected] of [
    [undefined, 65_000],
    [90_000, 90_000],
  ] as const) {
    const app = await createApp({ store, config: { ...config, keepAliveTimeoutMs: given } });
    const { server } = await app.listen(0);
    expect(server.keepAliveTimeout).toBe(expected);
    // Node would otherwise cut a connection idle between requests at headersTimeout.
    expect(server.headersTimeout).toBeGreaterThan(expected);
    await app.close();
  }
  await dispose();
});
