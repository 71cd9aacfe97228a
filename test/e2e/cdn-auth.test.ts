/**
 * Media URLs that need authentication: a server with --cdn-token-only (as the real platform since
 * 2026-03) whose media URLs are on a CDN of another origin — a server in this test that logs every
 * request and passes it on to the server's /cdn — and the CLI's `media download` (run() in this
 * process) with cdnAuth off, on, on for another host, and across a redirect.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';
import { scratch } from '../helpers/scratch.js';

const { temp, defer, cleanup } = scratch();
afterAll(cleanup);

interface Cdn {
  origin: string;
  host: string;
  log: { path: string; authorization: string | undefined }[];
  /** Answers every request with a redirect to this origin instead of passing it on. */
  redirectTo?: string;
}

/** A CDN in front of serve's /cdn: logs each request, then forwards it as it came. */
async function cdnServer(upstream: () => string): Promise<Cdn> {
  const cdn: Cdn = { origin: '', host: '', log: [] };
  const server: Server = createServer((req, res) => {
    cdn.log.push({ path: req.url ?? '', authorization: req.headers.authorization });
    if (cdn.redirectTo) {
      res.writeHead(302, { location: `${cdn.redirectTo}${req.url}` });
      res.end();
      return;
    }
    const target = new URL(req.url ?? '/', upstream());
    const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
    const out = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  cdn.origin = `http://127.0.0.1:${port}`;
  cdn.host = `127.0.0.1:${port}`;
  defer(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return cdn;
}

let srv: CliServed;
let cdn: Cdn;
let other: Cdn;
let mediumId: string;
const photo = Buffer.from(`not really a photo, but bytes ${'x'.repeat(2000)}\n`);
let dir: string;

beforeAll(async () => {
  dir = temp('roster-cdn-auth-');
  const origin = () => new URL(srv.baseUrl).origin;
  cdn = await cdnServer(origin);
  other = await cdnServer(origin);
  srv = await startCliServed({ cdnTokenOnly: true, cdnUrl: `${cdn.origin}/cdn` });
  defer(() => srv.close());
  writeFileSync(join(dir, 'notes.txt'), photo);
  const up = await srv.run(['-o', 'json', 'media', 'upload', join(dir, 'notes.txt')]);
  expect(up.exitCode, up.stderr).toBe(0);
  const medium = JSON.parse(up.stdout);
  mediumId = (Array.isArray(medium) ? medium[0] : medium).id;
});

const download = (to: string, env: Record<string, string> = {}) =>
  srv.run(['media', 'download', mediumId, '--to', join(dir, to)], { env });

describe('a media URL on another origin that needs the token', () => {
  it('cdnAuth off: fails saying the URL needs authentication, and the CDN never saw the token', async () => {
    cdn.log.length = 0;
    const r = await download('off.txt');
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(`/cdn/_default/main/${mediumId}/notes.txt answered 401`);
    expect(r.stderr).toContain('this media URL needs authentication');
    expect(r.stderr).toContain(`roster profiles cdn-auth ${cdn.host}`);
    expect(r.stderr).not.toContain('does not look like the Roster API');
    expect(existsSync(join(dir, 'off.txt'))).toBe(false);
    expect(cdn.log.length).toBeGreaterThan(0);
    expect(cdn.log.every((l) => l.authorization === undefined)).toBe(true);
  });

  it('cdnAuth on for another host only: the CDN still never sees the token', async () => {
    cdn.log.length = 0;
    const r = await download('elsewhere.txt', { ROSTER_CDN_AUTH: other.host });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('this media URL needs authentication');
    expect(cdn.log.every((l) => l.authorization === undefined)).toBe(true);
  });

  it('cdnAuth on for the CDN (profiles cdn-auth): the token goes there and the file is saved', async () => {
    const set = await srv.run(['profiles', 'cdn-auth', cdn.host]);
    expect(set.exitCode, set.stderr).toBe(0);
    cdn.log.length = 0;
    const r = await download('on.txt');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'on.txt')).equals(photo)).toBe(true);
    expect(cdn.log.map((l) => l.authorization)).toEqual([`Basic ${srv.adminToken}`]);
  });

  it('a redirect to another origin does not carry the token, even to an allowed host', async () => {
    cdn.redirectTo = other.origin;
    cdn.log.length = 0;
    other.log.length = 0;
    try {
      const r = await download('redirected.txt', { ROSTER_CDN_AUTH: `${cdn.host},${other.host}` });
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toContain('reached through a redirect to another origin');
      expect(cdn.log[0]?.authorization).toBe(`Basic ${srv.adminToken}`);
      expect(other.log.length).toBeGreaterThan(0);
      expect(other.log.every((l) => l.authorization === undefined)).toBe(true);
      expect(existsSync(join(dir, 'redirected.txt'))).toBe(false);
    } finally {
      cdn.redirectTo = undefined;
    }
  });

  it('--off turns it off again', async () => {
    expect((await srv.run(['profiles', 'cdn-auth', '--off'])).exitCode).toBe(0);
    cdn.log.length = 0;
    expect((await download('off-again.txt')).exitCode).toBe(3);
    expect(cdn.log.every((l) => l.authorization === undefined)).toBe(true);
  });
});

it('media URLs on the API’s own origin get the token as every API request does', async () => {
  const own = await startCliServed({ cdnTokenOnly: true });
  defer(() => own.close());
  writeFileSync(join(dir, 'own.txt'), photo);
  const up = await own.run(['-o', 'json', 'media', 'upload', join(dir, 'own.txt')]);
  const medium = JSON.parse(up.stdout);
  const id = (Array.isArray(medium) ? medium[0] : medium).id;
  const r = await own.run(['media', 'download', id, '--to', join(dir, 'own-copy.txt')]);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(readFileSync(join(dir, 'own-copy.txt')).equals(photo)).toBe(true);
});
