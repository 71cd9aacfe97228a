/**
 * A profile's token is bound to its base URL, as gh binds a token to its host: `--base-url` or
 * ROSTER_BASE_URL pointing elsewhere never gets the profile's token without a person saying so
 * at a terminal. The CLI's run() in-process with a profile for a real server, and a second real
 * listener on another port that records every request (and its Authorization) reaching it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Profile } from '../../src/cli/config.js';
import { run } from '../../src/cli/main.js';
import { type FakeServer, sendJson, startServer as startListener } from '../helpers/fake-server.js';
import { scratch } from '../helpers/scratch.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { fakeIO, scriptedPrompter } from './helpers.js';

const dirs = scratch();

let server: TestServer;
let other: FakeServer;
let config: string;
const PROFILE_TOKEN = () => server.adminToken;

function writeProfiles(profiles: Record<string, Profile>) {
  writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
}

beforeEach(async () => {
  server = await startServer();
  // Answers as an empty service would, so a request that is let through succeeds.
  other = await startListener((req, res) => {
    if (req.url?.startsWith('/api/users'))
      sendJson(res, 200, { data: [], total: 0, offset: 0, limit: 100 });
    else
      sendJson(res, 404, {
        identifier: 40408,
        statusCode: 404,
        message: 'no',
        type: 'NotFoundException',
      });
  });
  config = dirs.temp('roster-token-binding-');
  writeProfiles({ local: { baseUrl: `${server.url}/api`, token: PROFILE_TOKEN() } });
});
afterEach(async () => {
  await other.close();
  await server.close();
  await dirs.cleanup();
});

async function roster(
  args: string[],
  {
    env = {},
    tty = false,
    answers,
  }: { env?: Record<string, string>; tty?: boolean; answers?: boolean[] } = {},
) {
  const fake = fakeIO({ tty });
  const prompter = answers ? scriptedPrompter(answers) : undefined;
  const code = await run(['node', 'roster', ...args], {
    io: fake.io,
    env: { NO_COLOR: '1', ROSTER_CONFIG_DIR: config, HOME: config, ...env },
    ...(prompter ? { prompter } : {}),
  });
  return { code, out: fake.out(), err: fake.err(), asked: prompter?.asked ?? [] };
}

const reached = () => other.seen.map((s) => s.headers.authorization ?? '(none)');

describe("a profile's token and another base URL", () => {
  it.each([
    ['--base-url', ['--base-url', 'OTHER'], {}],
    ['ROSTER_BASE_URL', [], { ROSTER_BASE_URL: 'OTHER' }],
    ['--profile with --base-url', ['--profile', 'local', '--base-url', 'OTHER'], {}],
  ])(
    '%s elsewhere, not on a terminal: refused (exit 2) and nothing reaches it',
    async (_n, flags, env) => {
      const at = (v: string) => (v === 'OTHER' ? other.baseUrl : v);
      const r = await roster([...flags.map(at), 'users', 'list'], {
        env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, at(v)])),
      });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain("profile 'local'");
      expect(r.err).toContain(server.url);
      expect(r.err).toContain(other.origin);
      expect(r.err).toContain('ROSTER_TOKEN');
      expect(reached()).toEqual([]);
      expect(other.connections()).toBe(0);
    },
  );

  it('on a terminal it asks; no keeps the token home (exit 2), yes sends it', async () => {
    const no = await roster(['--base-url', other.baseUrl, 'users', 'list'], {
      tty: true,
      answers: [false],
    });
    expect(no.code, no.err).toBe(2);
    expect(no.asked).toEqual([expect.stringContaining(other.origin)]);
    expect(reached()).toEqual([]);

    const yes = await roster(['--base-url', other.baseUrl, 'users', 'list'], {
      tty: true,
      answers: [true],
    });
    expect(yes.code, yes.err).toBe(0);
    expect(reached()).not.toEqual([]);
  });

  it("ROSTER_TOKEN goes with --base-url, never the profile's token", async () => {
    const r = await roster(['--base-url', other.baseUrl, 'users', 'list'], {
      env: { ROSTER_TOKEN: 'RU5WOnRva2Vu' },
    });
    expect(r.code, r.err).toBe(0);
    expect(new Set(reached())).toEqual(new Set(['Basic RU5WOnRva2Vu']));
  });

  it("the profile's own URLs are its own: the same origin, and --region de", async () => {
    const same = await roster(['--base-url', `${server.url}/api`, 'users', 'list', '-o', 'json']);
    expect(same.code, same.err).toBe(0);
    // Its German URL (here the listener) is the profile's too.
    writeProfiles({
      local: { baseUrl: `${server.url}/api`, baseUrlDe: other.baseUrl, token: PROFILE_TOKEN() },
    });
    const de = await roster(['--region', 'de', 'users', 'list']);
    expect(de.code, de.err).toBe(0);
    expect(new Set(reached())).toEqual(new Set([`Basic ${PROFILE_TOKEN()}`]));
  });
});
