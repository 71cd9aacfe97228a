/**
 * Company networks: the built CLI through a real proxy, Debian's tinyproxy, started here on a
 * free port with a generated config. Its log shows what went through it: http:// requests
 * forwarded whole (`GET http://…`), https:// ones as a CONNECT tunnel to host:port only (the
 * token and the request travel inside TLS), and nothing for hosts in NO_PROXY.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, serve } from '../helpers/e2e.js';
import { engineAvailable } from '../helpers/engine.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/fake-server.js';
import { scratch } from '../helpers/scratch.js';

const TINYPROXY = ['/usr/bin/tinyproxy', '/usr/sbin/tinyproxy'].find((p) => existsSync(p));
const OPENSSL = ['/usr/bin/openssl', '/bin/openssl'].find((p) => existsSync(p));
const hasProxy = engineAvailable(
  'the proxy tests',
  TINYPROXY !== undefined && OPENSSL !== undefined,
  'install tinyproxy and openssl (apt-get install tinyproxy openssl)',
);

const { temp, defer, cleanup } = scratch();
afterAll(cleanup);

interface Proxy {
  url: string;
  /** The request lines tinyproxy logged since the last call. */
  requests(): string[];
}

/** tinyproxy on a free port, allowing CONNECT only to `connectPorts`; stopped after the file. */
async function tinyproxy(connectPorts: number[]): Promise<Proxy> {
  const dir = temp('roster-tinyproxy-');
  const port = await freePort();
  const log = join(dir, 'tinyproxy.log');
  writeFileSync(
    join(dir, 'tinyproxy.conf'),
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      `LogFile "${log}"`,
      'LogLevel Info',
      'MaxClients 20',
      'Allow 127.0.0.1',
      ...connectPorts.map((p) => `ConnectPort ${p}`),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(TINYPROXY!, ['-d', '-c', join(dir, 'tinyproxy.conf')], {
    stdio: 'ignore',
  });
  defer(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  );
  await eventually(
    () => existsSync(log) && readFileSync(log, 'utf8').includes('Accepting connections'),
  );
  let seen = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests() {
      const lines = readFileSync(log, 'utf8')
        .split('\n')
        .map((l) => /Request \(file descriptor \d+\): (.*)$/.exec(l)?.[1])
        .filter((l): l is string => l !== undefined);
      const fresh = lines.slice(seen);
      seen = lines.length;
      return fresh;
    },
  };
}

interface Front {
  origin: string;
  port: number;
  /** What reached it: method, path and whether the token came along. */
  seen: { line: string; authorization: string | undefined }[];
}

/**
 * An https front for `roster serve` (a self-signed certificate made with openssl, trusted by
 * the CLI through NODE_EXTRA_CA_CERTS): it records each request and passes it on.
 */
async function httpsFront(upstream: string, dir: string): Promise<Front> {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    OPENSSL!,
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-days',
      '2',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  const front: Front = { origin: '', port: 0, seen: [] };
  const server = createHttpsServer(
    { key: readFileSync(key), cert: readFileSync(cert) },
    (req, res) => {
      front.seen.push({
        line: `${req.method} ${req.url}`,
        authorization: req.headers.authorization,
      });
      const target = new URL(req.url ?? '/', upstream);
      const out = request(
        target,
        { method: req.method, headers: { ...req.headers, host: target.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      req.pipe(out);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  front.port = (server.address() as AddressInfo).port;
  front.origin = `https://127.0.0.1:${front.port}`;
  defer(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return front;
}

let srv: Served;
let proxy: Proxy;
let front: Front;
let tls: string;
let apiPath: string;

beforeAll(async () => {
  if (!hasProxy) return;
  srv = await serve();
  defer(() => srv.close());
  tls = temp('roster-proxy-tls-');
  front = await httpsFront(new URL(srv.baseUrl).origin, tls);
  proxy = await tinyproxy([front.port]);
  apiPath = new URL(srv.baseUrl).pathname;
});

const list = (env: Record<string, string>) =>
  srv.run(['users', 'list', '--limit', '1', '-o', 'json'], { env });

describe.runIf(hasProxy)('through tinyproxy', () => {
  it('http:// URLs: HTTP_PROXY forwards the whole request (token included)', async () => {
    proxy.requests();
    const r = await list({ HTTP_PROXY: proxy.url });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(proxy.requests()).toEqual([
      `GET ${srv.baseUrl}/users?limit=1&status=activated%2Cpending HTTP/1.1`,
    ]);
  });

  it('the lower-case http_proxy too, and it wins over HTTP_PROXY', async () => {
    proxy.requests();
    const r = await list({ http_proxy: proxy.url, HTTP_PROXY: 'http://127.0.0.1:9' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.requests()).toHaveLength(1);
  });

  it('https:// URLs: HTTPS_PROXY opens a CONNECT tunnel; the proxy sees host and port only', async () => {
    proxy.requests();
    front.seen.length = 0;
    const r = await list({
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: join(tls, 'cert.pem'),
      ROSTER_BASE_URL: `${front.origin}${apiPath}`,
      // Another origin than the profile's: a profile's token goes only to its own base URL.
      ROSTER_TOKEN: srv.adminToken,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.requests()).toEqual([`CONNECT 127.0.0.1:${front.port} HTTP/1.1`]);
    // Inside the tunnel the request went on, with the token, to the service.
    expect(front.seen).toEqual([
      {
        line: `GET ${apiPath}/users?limit=1&status=activated%2Cpending`,
        authorization: `Basic ${srv.adminToken}`,
      },
    ]);
  });

  it('https_proxy, lower case, likewise', async () => {
    proxy.requests();
    const r = await list({
      https_proxy: proxy.url,
      NODE_EXTRA_CA_CERTS: join(tls, 'cert.pem'),
      ROSTER_BASE_URL: `${front.origin}${apiPath}`,
      // Another origin than the profile's: a profile's token goes only to its own base URL.
      ROSTER_TOKEN: srv.adminToken,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.requests()).toEqual([`CONNECT 127.0.0.1:${front.port} HTTP/1.1`]);
  });

  it('NO_PROXY (or no_proxy) bypasses it: nothing in its log', async () => {
    proxy.requests();
    const envs: Record<string, string>[] = [
      { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
      { HTTP_PROXY: proxy.url, no_proxy: `localhost, 127.0.0.1:${new URL(srv.baseUrl).port}` },
      { HTTP_PROXY: proxy.url, NO_PROXY: '*' },
    ];
    for (const env of envs) {
      const r = await list(env);
      expect(r.exitCode, `${JSON.stringify(env)}: ${r.stderr}`).toBe(0);
    }
    expect(proxy.requests()).toEqual([]);
    // A NO_PROXY entry for another port does not match.
    const other = await list({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1:1' });
    expect(other.exitCode, other.stderr).toBe(0);
    expect(proxy.requests()).toHaveLength(1);
  });

  it('a CONNECT the proxy refuses: one line naming the proxy and what it answered', async () => {
    const port = await freePort();
    const r = await list({
      HTTPS_PROXY: proxy.url,
      ROSTER_BASE_URL: `https://127.0.0.1:${port}/api`,
      ROSTER_TOKEN: srv.adminToken,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `The proxy ${proxy.url} (HTTPS_PROXY) refused to connect to 127.0.0.1:${port} (it answered 403)`,
    );
    expect(r.stderr).toContain('NO_PROXY');
    expect(proxy.requests()).toEqual([`CONNECT 127.0.0.1:${port} HTTP/1.1`]);
  });
});

it.runIf(hasProxy)('a medium downloads through the proxy too', async () => {
  const dir = temp('roster-proxy-media-');
  writeFileSync(join(dir, 'a.txt'), 'through the proxy\n');
  const up = await srv.run(['-o', 'json', 'media', 'upload', join(dir, 'a.txt')]);
  expect(up.exitCode, up.stderr).toBe(0);
  const medium = JSON.parse(up.stdout);
  const id = (Array.isArray(medium) ? medium[0] : medium).id;
  proxy.requests();
  const r = await srv.run(['media', 'download', id, '--to', join(dir, 'b.txt')], {
    env: { HTTP_PROXY: proxy.url },
  });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('through the proxy\n');
  const lines = proxy.requests();
  expect(lines[0]).toBe(`GET ${srv.baseUrl}/media/${id} HTTP/1.1`);
  expect(lines[1]).toMatch(
    new RegExp(`^GET ${new URL(srv.baseUrl).origin}/cdn/_default/main/${id}/a\\.txt\\?`),
  );
});
