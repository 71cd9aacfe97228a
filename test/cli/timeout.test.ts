/**
 * --timeout and ROSTER_TIMEOUT reach the client, and a service that never answers fails naming
 * them: the CLI's run() against a real server on a real port that accepts and never answers.
 * One attempt each (the retry loop has its own tests in test/client/http.test.ts): undici's
 * timers tick at about a second, so each retry would wait that out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { createApiClient } from '../../src/client/index.js';
import { type FakeServer, startServer } from '../helpers/fake-server.js';
import { fakeIO, tempConfigDir } from './helpers.js';

let silent: FakeServer;
let stalling: FakeServer;
const [configDir, removeConfig] = tempConfigDir();
beforeAll(async () => {
  silent = await startServer(() => undefined);
  stalling = await startServer((_req, res) => {
    // Headers and the start of a body, then nothing, ever.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"id":');
  });
});
afterAll(async () => {
  await Promise.all([silent.close(), stalling.close()]);
  removeConfig();
});

async function roster(args: string[], env: Record<string, string> = {}, server = silent) {
  const fake = fakeIO();
  let timeoutMs: number | undefined;
  const code = await run(['node', 'roster', ...args], {
    io: fake.io,
    env: {
      ROSTER_BASE_URL: server.baseUrl,
      ROSTER_TOKEN: 'dA==',
      ROSTER_CONFIG_DIR: configDir,
      ...env,
    },
    connect: (options) => {
      timeoutMs = options.timeoutMs;
      return createApiClient({ ...options, retry: { maxRetries: 0 } });
    },
  });
  return { code, stderr: fake.err(), timeoutMs };
}

describe('a service that never answers', () => {
  it('fails after --timeout, naming the flag and the variable', async () => {
    const r = await roster(['users', 'show', 'x', '--timeout', '0.5']);
    expect(r.timeoutMs).toBe(500);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no answer within 0.5 s');
    expect(r.stderr).toContain('--timeout SECONDS (ROSTER_TIMEOUT)');
  });

  it('ROSTER_TIMEOUT sets it when the flag is absent; the flag wins over it', async () => {
    const fromEnv = await roster(['media', 'list'], { ROSTER_TIMEOUT: '0.5' });
    expect(fromEnv.timeoutMs).toBe(500);
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain('no answer within 0.5 s');
    const both = await roster(['media', 'list', '--timeout', '0.25'], { ROSTER_TIMEOUT: '9' });
    expect(both.timeoutMs).toBe(250);
  });

  it('an answer whose body stalls fails the same way: the timeout is also between body bytes', async () => {
    const r = await roster(['users', 'show', 'x', '-o', 'json', '--timeout', '0.5'], {}, stalling);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--timeout SECONDS (ROSTER_TIMEOUT)');
  });

  it('a timeout that is not a number of seconds is a usage error, before any request', async () => {
    const before = silent.seen.length;
    const r = await roster(['users', 'show', 'x', '--timeout', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("expected a number of seconds above 0, got 'soon'");
    expect(silent.seen.length).toBe(before);
  });
});
