/**
 * The CLI around the commands: configuration and its precedence, login/profiles, failures on the
 * way to the service (unreachable, dropped, throttled, not the API), exit codes, --verbose,
 * completion. The built CLI is spawned where the process is the point (start-up, usage errors,
 * a fresh machine, exit codes, Ctrl-C); the rest runs the CLI's run() against a real server in
 * this process.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';
import { roster, start } from '../helpers/e2e.js';
import { eventually } from '../helpers/eventually.js';
import { EMPTY_PAGE, sendJson, startServer } from '../helpers/fake-server.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();

let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed();
});
afterAll(async () => {
  await srv?.close();
  await dirs.cleanup();
});

describe('basics', () => {
  it('--version, --help, and usage errors (exit 2 with a hint)', async () => {
    const v = await roster(['--version']);
    expect(v).toMatchObject({
      exitCode: 0,
      stdout: `${JSON.parse(readFileSync('package.json', 'utf8')).version}\n`,
    });
    const help = await roster(['--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Exit codes: 0 ok');
    const typo = await roster(['user', 'list']);
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('(Did you mean users?)');
    const flag = await roster(['users', 'list', '--colour']);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain("unknown option '--colour'");
  });

  it('completion scripts come out of the command tree; bash parses', async () => {
    const bash = await roster(['completion', 'bash']);
    expect(bash.exitCode).toBe(0);
    execFileSync('bash', ['-n'], { input: bash.stdout });
    expect(bash.stdout).toContain(
      "'users') echo 'list show invite update activate deactivate remove",
    );
    for (const shell of ['zsh', 'fish'])
      expect((await roster(['completion', shell])).exitCode).toBe(0);
  });
});

describe('configuration', () => {
  it('serve saved profile `local`: commands work with no flags', async () => {
    const r = await srv.run(['users', 'list']);
    expect(r).toMatchObject({ exitCode: 0, stdout: '[]\n' });
  });

  it('precedence: --base-url > ROSTER_BASE_URL > profile; --profile > ROSTER_TOKEN; a profile token stays on its origin', async () => {
    const other = await startServer((_req, res) => sendJson(res, 200, EMPTY_PAGE));
    try {
      const envUrl = `${other.baseUrl}`;
      // env beats the profile's URL, but the profile's token is not sent to another origin
      const bound = await srv.run(['users', 'list'], { env: { ROSTER_BASE_URL: envUrl } });
      expect(bound.exitCode, bound.stderr).toBe(2);
      expect(bound.stderr).toContain("the token of profile 'local'");
      expect(other.seen.length).toBe(0);
      const env = await srv.run(['users', 'list', '--verbose'], {
        env: { ROSTER_BASE_URL: envUrl, ROSTER_TOKEN: 'dA==' },
      });
      expect(env.exitCode).toBe(0);
      expect(other.seen.length).toBe(1);
      expect(env.stderr).toContain(`using ${envUrl} (ROSTER_BASE_URL), token from ROSTER_TOKEN`);
      // the flag beats env
      const flag = await srv.run(['users', 'list', '--verbose', '--base-url', srv.baseUrl], {
        env: { ROSTER_BASE_URL: envUrl },
      });
      expect(flag.exitCode).toBe(0);
      expect(other.seen.length).toBe(1);
      expect(flag.stderr).toContain(`using ${srv.baseUrl} (--base-url)`);
      // ROSTER_TOKEN beats the profile's token; --profile beats ROSTER_TOKEN
      const badToken = await srv.run(['users', 'list'], { env: { ROSTER_TOKEN: 'bm9wZTpub3Bl' } });
      expect(badToken.exitCode).toBe(3);
      const named = await srv.run(['--profile', 'local', 'users', 'list'], {
        env: { ROSTER_TOKEN: 'bm9wZTpub3Bl' },
      });
      expect(named.exitCode).toBe(0);
      // ROSTER_PROFILE names a profile; an unknown one is exit 3 with a hint
      const unknown = await srv.run(['users', 'list'], { env: { ROSTER_PROFILE: 'ci' } });
      expect(unknown.exitCode).toBe(3);
      expect(unknown.stderr).toContain("no profile 'ci'");
      expect(unknown.stderr).toContain('roster login --profile ci');
    } finally {
      await other.close();
    }
  });

  it('a config file others can read is used with a warning, as ssh does', async () => {
    const path = join(srv.configDir, 'config.json');
    chmodSync(path, 0o644);
    try {
      const r = await srv.run(['users', 'list']);
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toContain(
        `warning: ${path} is mode 0644: other users can read the API tokens`,
      );
      expect(r.stderr).toContain(`chmod 600 ${path}`);
    } finally {
      chmodSync(path, 0o600);
    }
    expect((await srv.run(['users', 'list'])).stderr).not.toContain('warning');
  });

  it('a fresh machine: exit 3 with a hint to log in', async () => {
    const empty = dirs.temp('roster-e2e-empty-');
    const r = await roster(['users', 'list'], { env: { ROSTER_CONFIG_DIR: empty } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('run `roster login`');
  });

  it('a malformed config file: the message names the file', async () => {
    const dir = dirs.temp('roster-e2e-bad-');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{"profiles": {');
    const r = await roster(['users', 'list'], { env: { ROSTER_CONFIG_DIR: dir } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(join(dir, 'config.json'));
    expect(r.stderr).not.toContain('    at ');
  });

  it('login with a base URL missing /api says which one to use, before a token is asked', async () => {
    const origin = srv.baseUrl.replace(/\/api$/, '');
    const r = await srv.run(['login', '--base-url', origin, '--token', '-', '--profile', 'x'], {
      input: 'never-read\n',
    });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(`did you mean ${srv.baseUrl}?`);
    expect(r.stderr).not.toContain('Check the id');
  });

  it('login checks and saves a profile (0600); profiles list never shows tokens; logout', async () => {
    const { token } = await srv.newToken();
    const bad = await srv.run([
      'login',
      '--base-url',
      srv.baseUrl,
      '--token',
      'bm9wZTpub3Bl',
      '--profile',
      'e2e',
    ]);
    expect(bad.exitCode).toBe(3);
    expect(bad.stderr).toContain('nothing was saved');
    const ok = await srv.run(
      ['login', '--base-url', srv.baseUrl, '--token', '-', '--profile', 'e2e'],
      { input: `${token}\n` },
    );
    expect(ok.exitCode, ok.stderr).toBe(0);
    const file = join(srv.configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const list = await srv.run(['profiles', 'list']);
    expect(JSON.parse(list.stdout)).toEqual([
      {
        name: 'local',
        current: false,
        baseUrl: srv.baseUrl,
        baseUrlDe: null,
        vendor: null,
        role: null,
        locale: null,
        dataDir: null,
      },
      {
        name: 'e2e',
        current: true,
        baseUrl: srv.baseUrl,
        baseUrlDe: null,
        vendor: null,
        role: null,
        locale: null,
        dataDir: null,
      },
    ]);
    for (const format of ['json', 'table', 'csv', 'ndjson']) {
      const out = await srv.run(['profiles', 'list', '-o', format]);
      expect(out.stdout).not.toContain(token);
      expect(out.stdout).not.toContain(srv.adminToken);
    }
    expect((await srv.run(['users', 'list'])).exitCode).toBe(0);
    expect((await srv.run(['profiles', 'use', 'nope'])).exitCode).toBe(4);
    expect((await srv.run(['logout'])).exitCode).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).profiles)).toEqual(['local']);
    expect((await srv.run(['profiles', 'use', 'local'])).exitCode).toBe(0);
  });

  it('--region de uses the profile German URL; without one it is a usage error', async () => {
    const r = await srv.run(['--region', 'de', 'users', 'list']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--base-url-de');
    const ok = await srv.run([
      'login',
      '--base-url',
      srv.baseUrl,
      '--base-url-de',
      srv.baseUrl,
      '--token',
      srv.adminToken,
      '--profile',
      'local',
    ]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect((await srv.run(['--region', 'de', 'users', 'list', '--verbose'])).stderr).toContain(
      "(profile 'local')",
    );
  });
});

describe('on the way to the service', () => {
  it('a revoked token: exit 3 with a hint to log in', async () => {
    const { id, token } = await srv.newToken();
    expect((await srv.run(['users', 'list'], { env: { ROSTER_TOKEN: token } })).exitCode).toBe(0);
    expect((await srv.run(['tokens', 'revoke', id])).exitCode).toBe(0);
    const r = await srv.run(['users', 'list'], { env: { ROSTER_TOKEN: token } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/401 NotLoggedInException/);
    expect(r.stderr).toContain('roster login');
  });

  it('--verbose traces requests with timing, never the token', async () => {
    const r = await srv.run(['users', 'list', '--verbose']);
    expect(r.stderr).toMatch(
      /→ GET http:\/\/127\.0\.0\.1:\d+\/api\/users\?status=activated%2Cpending\n← 200 OK \d+ ms/,
    );
    expect(r.stderr).toContain('(redacted)');
    expect(r.stderr).not.toContain(srv.adminToken);
  });

  it('429 with Retry-After, then 200: waits as told and succeeds', async () => {
    const s = await startServer((_req, res, n) =>
      n === 1
        ? sendJson(
            res,
            429,
            {
              identifier: 42900,
              statusCode: 429,
              message: 'slow down',
              type: 'TooManyRequestsException',
            },
            { 'retry-after': '1' },
          )
        : sendJson(res, 200, EMPTY_PAGE),
    );
    try {
      // The wait itself is proved in process (test/client/http.test.ts, with the sleep injected).
      const r = await roster(['users', 'list', '--base-url', `${s.baseUrl}`], {
        env: { ROSTER_TOKEN: 'dA==' },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('[]\n');
      expect(r.stderr).toContain('in 1.0 s (429 Too Many Requests; retry 1 of 4)');
      expect(s.seen.length).toBe(2);
    } finally {
      await s.close();
    }
  });

  it('a base URL that is not the API (an HTML page): exit 1 saying so', async () => {
    const s = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Welcome to nginx!</title></head></html>');
    });
    try {
      const r = await roster(['users', 'list', '--base-url', s.origin], {
        env: { ROSTER_TOKEN: 'dA==' },
      });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('("Welcome to nginx!")');
      expect(r.stderr).toContain('This does not look like the Roster API');
    } finally {
      await s.close();
    }
  });

  it('Ctrl-C (SIGINT) while waiting: exit 130', async () => {
    const s = await startServer(() => {}); // never answers
    try {
      const child = start(['users', 'list', '--base-url', `${s.baseUrl}`], {
        env: { ROSTER_TOKEN: 'dA==' },
      });
      await eventually(() => s.seen.length > 0, 15_000);
      child.kill('SIGINT');
      const r = await child.done;
      expect(r.exitCode).toBe(130);
      expect(r.stderr).toContain('interrupted');
    } finally {
      await s.close();
    }
  });
});
