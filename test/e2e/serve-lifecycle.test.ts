/** `roster serve` as a process: first run, profile, restart, drain on SIGTERM, kill -9, flags. */
import { chmodSync, existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { cliWith } from '../helpers/cli-run.js';
import { BIN, type Env, spawnServe } from '../helpers/e2e.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';
import { requester, V3 } from '../helpers/server.js';

const scope = scratch();
afterEach(scope.cleanup);
const { temp } = scope;

const local = async (args: string[], env: Env) => {
  const r = await cliWith(env)(args);
  return { exitCode: r.code, stdout: r.stdout, stderr: r.stderr };
};

const profileOf = (configDir: string) =>
  JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.local as {
    baseUrl: string;
    token: string;
  };

describe('roster serve', () => {
  test('first run: default tenant, admin token saved as profile local (0600); restart keeps data', async () => {
    const data = temp('roster-life-data-');
    const config = temp('roster-life-config-');
    const first = await spawnServe(data, config);
    // Started as a user starts it: none of the test runner's node flags (--conditions
    // development would load packages' development builds).
    const argv = readFileSync(`/proc/${first.child.pid}/cmdline`, 'utf8').split('\0');
    expect(argv.slice(1, 2)).toEqual([BIN]);
    expect(first.logs.join('\n')).toContain("saved it as CLI profile 'local'");
    const profile = profileOf(config);
    expect(profile.baseUrl).toBe(`${first.url}/api`);
    expect(statSync(join(config, 'config.json')).mode & 0o777).toBe(0o600);
    expect(first.logs.join('\n')).not.toContain(profile.token);

    const req = requester(first.url, profile.token);
    const created = await req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: JSON.stringify({ email: 'keep@example.com', externalId: 'keep' }),
    });
    expect(created.status).toBe(201);
    first.child.kill('SIGTERM');
    const exited = await first.child;
    expect(exited.exitCode).toBe(0);
    expect(String(exited.stderr)).toContain('stopped');

    // Left world-readable meanwhile: tightened to 0700 on the next start, with a warning.
    chmodSync(data, 0o755);
    const second = await spawnServe(data, config);
    expect(second.logs.join('\n')).not.toContain('created the default tenant');
    expect(second.logs.join('\n')).toContain(
      `warning: data dir ${data} was mode 0755; set to 0700`,
    );
    expect(statSync(data).mode & 0o777).toBe(0o700);
    expect(statSync(join(data, 'roster.db')).mode & 0o777).toBe(0o600);
    const again = requester(second.url, profileOf(config).token);
    expect(profileOf(config).baseUrl).toBe(`${second.url}/api`);
    const got = await again('GET', '/api/users/keep', { headers: { accept: V3 } });
    expect(got.json.id).toBe(created.json.id);
    second.child.kill('SIGTERM');
    await second.child;
    // The database file too, for the local admin commands.
    chmodSync(join(data, 'roster.db'), 0o644);
    const tokens = await local(['tokens', 'list', '--data', data], { ROSTER_CONFIG_DIR: config });
    expect(tokens.exitCode).toBe(0);
    expect(String(tokens.stderr)).toContain('roster.db was mode 0644; set to 0600');
  });

  test('a missing media directory stops serve with one line; nothing is removed', async () => {
    const data = temp('roster-life-media-');
    const config = temp('roster-life-config-');
    const first = await spawnServe(data, config);
    const req = requester(first.url, profileOf(config).token);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('hello')]), 'hello.txt');
    const body = new Request('http://x', { method: 'POST', body: form });
    const up = await req('POST', '/api/media', {
      headers: { 'content-type': body.headers.get('content-type')! },
      body: Buffer.from(await body.arrayBuffer()),
    });
    expect(up.status).toBe(200);
    first.child.kill('SIGTERM');
    await first.child;

    const files = join(data, 'media', 'files');
    renameSync(files, `${files}.away`);
    // Refusals run in-process: serve stops before it listens, so nothing waits for a signal.
    const refused = await local(['serve', '--port', '0', '--data', data], {
      ROSTER_CONFIG_DIR: config,
    });
    expect(refused.exitCode).toBe(1);
    expect(String(refused.stderr).trim()).toBe(
      `error: the media files directory ${files} is missing, but 1 media rows name files in it: mount or restore it, then start again (nothing was changed)`,
    );
    renameSync(`${files}.away`, files);
    const second = await spawnServe(data, config);
    const got = await requester(second.url, profileOf(config).token)(
      'GET',
      `/api/media/${up.json.id}`,
    );
    expect(got.status).toBe(200);
    second.child.kill('SIGTERM');
    await second.child;
  });

  test('SIGTERM lets an in-flight request finish before exiting', async () => {
    const data = temp('roster-drain-data-');
    const config = temp('roster-drain-config-');
    const { child, url, logs } = await spawnServe(data, config);
    const { token } = profileOf(config);
    const body = JSON.stringify({ email: 'drain@example.com', externalId: 'drain' });
    const answer = new Promise<{ status: number; connection: string | undefined }>(
      (resolve, reject) => {
        const req = httpRequest(`${url}/api/users`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${token}`,
            'content-type': V3,
            'content-length': Buffer.byteLength(body),
            // The server's 100 Continue says it has taken the request on: it is in flight.
            expect: '100-continue',
          },
        });
        req.on('response', (res) => {
          res.resume();
          resolve({ status: res.statusCode!, connection: res.headers.connection });
        });
        req.on('error', reject);
        // Half the body now, SIGTERM while the server waits for the rest, then the rest.
        req.on('continue', async () => {
          req.write(body.slice(0, 10));
          child.kill('SIGTERM');
          await eventually(() => logs.some((l) => l.includes('finishing in-flight requests')));
          req.end(body.slice(10));
        });
      },
    );
    const r = await answer;
    expect(r.status).toBe(201);
    expect(r.connection).toBe('close');
    expect((await child).exitCode).toBe(0);
    const store = await local(['tokens', 'list', '-o', 'json', '--data', data], {
      ROSTER_CONFIG_DIR: config,
    });
    expect(store.exitCode).toBe(0);
  });

  test('bad flags and a port in use are usage errors (exit 2); --rate-limit answers 429 with Retry-After', async () => {
    const data = temp('roster-flags-data-');
    const config = temp('roster-flags-config-');
    const env = { ROSTER_CONFIG_DIR: config };
    for (const args of [
      ['serve', '--port', 'abc'],
      ['serve', '--port', '70000'],
      ['serve', '--max-upload-size', 'lots'],
      ['serve', '--rate-limit', 'fast', '--data', data],
      ['serve', '--bogus'],
    ]) {
      // In-process: refused while parsing, before anything starts.
      const r = await local(args, env);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(String(r.stderr), args.join(' ')).toMatch(/error|invalid/);
    }
    const { child, url } = await spawnServe(data, config, ['--rate-limit', '3/s']);
    const req = requester(url, profileOf(config).token);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await req('GET', '/api/users'));
    const limited = statuses.find((r) => r.status === 429)!;
    expect(limited.json).toMatchObject({ identifier: 42900, type: 'TooManyRequestsException' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const port = new URL(url).port;
    // A fresh data dir and a busy port: refused before anything is created.
    const fresh = join(temp('roster-flags-fresh-'), 'data');
    const otherConfig = temp('roster-flags-config2-');
    const busy = await local(['serve', '--port', port, '--data', fresh], {
      ROSTER_CONFIG_DIR: otherConfig,
    });
    expect(busy.exitCode).toBe(2);
    expect(String(busy.stderr)).toContain(`port ${port}`);
    expect(existsSync(join(fresh, 'roster.db'))).toBe(false);
    expect(existsSync(join(otherConfig, 'config.json'))).toBe(false);
    child.kill('SIGTERM');
    await child;
  });

  test('one serve per data dir: a second one exits 2 naming the first; kill -9 frees it and loses no acknowledged write', async () => {
    const data = temp('roster-lock-data-');
    const config = temp('roster-lock-config-');
    const first = await spawnServe(data, config);
    const before = profileOf(config);
    for (const port of ['0', new URL(first.url).port]) {
      const second = await local(['serve', '--port', port, '--data', data], {
        ROSTER_CONFIG_DIR: config,
      });
      expect(second.exitCode, String(second.stderr)).toBe(2);
      expect(String(second.stderr)).toContain(
        `another roster serve (pid ${first.child.pid}, ${first.url}/api) uses the data dir ${data}`,
      );
    }
    expect(profileOf(config)).toEqual(before);
    const req = requester(first.url, before.token);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await req('POST', '/api/users', {
        headers: { 'content-type': V3, accept: V3 },
        body: JSON.stringify({ email: `k${i}@example.com` }),
      });
      expect(r.status).toBe(201);
      ids.push(r.json.id);
    }
    first.child.kill('SIGKILL');
    await first.child;
    const third = await spawnServe(data, config);
    const again = requester(third.url, profileOf(config).token);
    for (const id of ids) expect((await again('GET', `/api/users/${id}`)).status).toBe(200);
    third.child.kill('SIGTERM');
    await third.child;
  });
});

describe('local admin commands', () => {
  test('tokens, tenants and branches on a data dir, beside a running serve', async () => {
    // The local admin commands run in-process (a matrix); serve is the built CLI's own process.
    const data = temp('roster-admin-data-');
    const config = temp('roster-admin-config-');
    const env = { ROSTER_CONFIG_DIR: config, ROSTER_DATA_DIR: data };
    const missing = await local(['tokens', 'list'], env);
    expect(missing.exitCode).toBe(1);
    expect(String(missing.stderr)).toContain(`no Roster data in ${data}`);

    const served = await spawnServe(data, config);
    const { child } = served;
    const created = await local(
      ['tokens', 'create', '--json', '--name', 'ci', '--scopes', 'users:read,media:read'],
      env,
    );
    expect(created.exitCode).toBe(0);
    const token = JSON.parse(String(created.stdout));
    expect(Object.keys(token).sort()).toEqual(['branch', 'id', 'scopes', 'token']);
    expect(token).toMatchObject({ branch: 'main', scopes: ['users:read', 'media:read'] });
    expect(Buffer.from(token.token, 'base64').toString()).toMatch(new RegExp(`^${token.id}:`));

    const list = JSON.parse(String((await local(['tokens', 'list', '-o', 'json'], env)).stdout));
    expect(list.map((t: { name: string }) => t.name)).toEqual(['admin', 'ci']);
    expect(JSON.stringify(list)).not.toContain(token.token);

    expect((await local(['tokens', 'create', '--scopes', 'users:admin'], env)).exitCode).toBe(2);
    expect((await local(['tokens', 'create', '--branch', 'nope'], env)).exitCode).toBe(4);
    expect((await local(['tokens', 'revoke', 'ffffffffffffffffffffffff'], env)).exitCode).toBe(4);
    expect((await local(['tokens', 'revoke', token.id], env)).exitCode).toBe(0);
    expect((await local(['tokens', 'revoke', token.id], env)).exitCode).toBe(4);

    expect((await local(['tenants', 'add', 'Acme.Example.com'], env)).exitCode).toBe(0);
    expect((await local(['tenants', 'add', 'acme.example.com'], env)).exitCode).toBe(1);
    expect((await local(['tenants', 'add', 'not a host'], env)).exitCode).toBe(2);
    const tenants = JSON.parse(
      String((await local(['tenants', 'list', '-o', 'json'], env)).stdout),
    );
    expect(tenants.map((t: { host: string }) => t.host)).toEqual(['*', 'acme.example.com']);
    const setUrl = ['tenants', 'set', 'acme.example.com', '--public-url', 'https://acme.example/'];
    expect((await local(setUrl, env)).exitCode).toBe(0);
    const nope = ['tenants', 'set', 'nope.example.com', '--public-url', 'https://x.example'];
    expect((await local(nope, env)).exitCode).toBe(4);
    for (const bad of ['ftp://x.example', 'https://x.example/?q=1', 'not a url']) {
      const r = await local(['tenants', 'set', 'acme.example.com', '--public-url', bad], env);
      expect(r.exitCode, bad).toBe(2);
      expect(String(r.stderr), bad).toContain('--public-url');
    }
    const withUrl = JSON.parse(
      String((await local(['tenants', 'list', '-o', 'json'], env)).stdout),
    );
    expect(withUrl[1]).toMatchObject({
      host: 'acme.example.com',
      publicUrl: 'https://acme.example',
    });
    const acmeToken = JSON.parse(
      String(
        (await local(['tokens', 'create', '--json', '--tenant', 'acme.example.com'], env)).stdout,
      ),
    ).token;
    const asAcme = requester(served.url, acmeToken);
    const made = await asAcme('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3, host: 'evil.example' },
      body: JSON.stringify({ email: 'url@example.com' }),
    });
    expect(made.status).toBe(401);
    const ok = await asAcme('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3, host: 'acme.example.com' },
      body: JSON.stringify({ email: 'url@example.com' }),
    });
    expect(ok.headers.location).toBe(`https://acme.example/api/users/${ok.json.id}`);
    expect(
      (await local(['tenants', 'set', 'acme.example.com', '--no-public-url'], env)).exitCode,
    ).toBe(0);
    const cleared = JSON.parse(
      String((await local(['tenants', 'list', '-o', 'json'], env)).stdout),
    );
    expect(cleared[1].publicUrl).toBeNull();
    expect(
      (await local(['branches', 'add', 'sales', '--tenant', 'acme.example.com'], env)).exitCode,
    ).toBe(0);
    expect((await local(['branches', 'add', '../x'], env)).exitCode).toBe(2);
    const csv = String(
      (await local(['branches', 'list', '--tenant', 'acme.example.com', '-o', 'csv'], env)).stdout,
    );
    expect(csv.split('\n')[0]).toBe('name,tenant,created');
    expect(csv).toContain('sales,acme.example.com,');
    child.kill('SIGTERM');
    await child;
  });
});
