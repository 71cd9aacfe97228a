/**
 * What a person reads when the service cannot be reached or keeps failing: the CLI's run() in
 * this process against real sockets (a closed port, servers that drop or fail every request),
 * with the wait between retries injected so the retries run at once. The spawned journey that
 * waits for real is test/e2e/cli.test.ts ("429 with Retry-After").
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cliWith } from '../helpers/cli-run.js';
import {
  EMPTY_PAGE,
  type FakeServer,
  freePort,
  sendJson,
  startServer,
} from '../helpers/fake-server.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();
afterAll(dirs.cleanup);
// The CLI remembers what a base URL accepted in its config dir: never the real one.
const configDir = dirs.temp('roster-retries-config-');
const waits: number[] = [];
const sleep = async (ms: number) => void waits.push(ms);
const roster = (args: string[], env: Record<string, string> = {}) =>
  cliWith({ ROSTER_TOKEN: 'dA==', ROSTER_CONFIG_DIR: configDir, ...env })(args, { sleep });

const servers: FakeServer[] = [];
const serve = async (...args: Parameters<typeof startServer>) => {
  const s = await startServer(...args);
  servers.push(s);
  return s;
};
afterEach(async () => {
  waits.length = 0;
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('retries, then a message a person can act on', () => {
  it('an unreachable host: exit 1 naming the URL, after four waits', async () => {
    const url = `http://127.0.0.1:${await freePort()}/api`;
    const r = await roster(['users', 'list', '--base-url', url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('connection refused');
    expect(r.stderr).toContain(`${url}/users`);
    expect(r.stderr).toContain('(ECONNREFUSED; retry 1 of 4)');
    expect(waits).toHaveLength(4);
  });

  it('a dropped connection is retried; one that always drops fails with a clear message', async () => {
    const once = await serve((req, res, n) =>
      n === 1 ? void req.socket.destroy() : sendJson(res, 200, EMPTY_PAGE),
    );
    const always = await serve((req) => void req.socket.destroy());
    const ok = await roster(['users', 'list', '--base-url', once.baseUrl]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/retrying GET .* \((UND_ERR_SOCKET|ECONNRESET); retry 1 of 4\)/);
    const bad = await roster(['users', 'list', '--base-url', always.baseUrl]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('closed before the answer was complete');
    expect(bad.stderr).toContain('(5 attempts)');
  });

  it('a 5xx is retried, then a clear error', async () => {
    const s = await serve((_req, res) =>
      sendJson(
        res,
        503,
        { identifier: 50000, statusCode: 503, message: 'maintenance', type: 'X' },
        { 'retry-after': '0' },
      ),
    );
    const r = await roster(['users', 'show', 'x', '--base-url', s.baseUrl]);
    expect(r.code).toBe(1);
    expect(s.seen.length).toBe(5);
    expect(r.stderr).toContain('maintenance (503');
    expect(r.stderr).toContain('try again later');
  });

  it('a proxy that is not there: the message names it, not the service, nor its password', async () => {
    const port = await freePort();
    const r = await roster(['users', 'list', '--base-url', 'http://127.0.0.1:9/api'], {
      HTTP_PROXY: `http://user:secret@127.0.0.1:${port}`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `Could not connect to the proxy http://127.0.0.1:${port} (HTTP_PROXY): connection refused`,
    );
    expect(r.stderr).not.toContain('secret');
  });

  it('check against an unreachable service: exit 1, the rest skipped', async () => {
    const r = await roster(['check', '--json', '--base-url', 'http://127.0.0.1:9/api']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.steps[0]).toMatchObject({ result: 'fail' });
    expect(report.steps[0].detail).toContain('127.0.0.1:9');
    expect(report.steps.slice(1).every((s: { result: string }) => s.result === 'skip')).toBe(true);
  });
});
