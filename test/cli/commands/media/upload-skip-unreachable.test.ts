/**
 * `media upload --skip-existing` where the media's public host (serve --cdn-url) is not
 * reachable from the admin's machine: the comparison goes through the API's own origin, and a
 * medium it cannot read there nor at its URL fails that one file, naming the URL, not the run.
 * In-process against a real server whose --cdn-url is a closed local port.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, cliAgainst, startCliServed } from '../../../helpers/cli-run.js';
import { sendJson, startServer as startListener } from '../../../helpers/fake-server.js';

/** A local port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

let srv: CliServed;
let cdn: string;
beforeAll(async () => {
  cdn = `http://127.0.0.1:${await closedPort()}/cdn`;
  srv = await startCliServed({ cdnUrl: cdn });
});
afterAll(async () => {
  await srv?.close();
});

const file = (name: string, content: string) => {
  const path = join(srv.dataDir, name);
  writeFileSync(path, content);
  return path;
};

describe('media upload --skip-existing with an unreachable public CDN', () => {
  it('compares through the API origin: a re-run skips, though the media URLs do not answer', async () => {
    const a = file('far-a.txt', 'far away\n');
    const first = await srv.run(['media', 'upload', a]);
    expect(first.exitCode, first.stderr).toBe(0);
    const [medium] = JSON.parse(first.stdout);
    expect(medium.resourceInfo.url.startsWith(cdn)).toBe(true);

    const again = await srv.run(['media', 'upload', '--skip-existing', a]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(`skipped ${a}: already there as ${medium.id}`);
    expect(again.stderr).toMatch(/0 uploaded, 1 skipped, 0 failed/);
  });

  it('a medium readable nowhere fails its file, naming the URL; the other files go on', async () => {
    const lost = file('lost.txt', 'lost file\n');
    const first = await srv.run(['media', 'upload', lost]);
    expect(first.exitCode, first.stderr).toBe(0);
    const [medium] = JSON.parse(first.stdout);
    // The row stays, its file goes: the API origin has no copy, and the CDN does not answer.
    const key = (await srv.store.media.placed(medium.id))!.blob_key;
    rmSync(join(srv.dataDir, 'media', 'files', key.slice(-2).toLowerCase(), key));

    const fresh = file('fresh-far.txt', 'fresh\n');
    const r = await srv.run(['media', 'upload', '--skip-existing', lost, fresh]);
    expect(r.exitCode, r.stderr).toBe(5);
    expect(r.stderr).toContain(`failed ${lost}: could not compare with medium ${medium.id}`);
    expect(r.stderr).toContain(`${cdn}/`);
    expect(r.stderr).not.toMatch(/signature=[0-9a-f]/);
    expect(JSON.parse(r.stdout).map((m: { fileName: string }) => m.fileName)).toEqual([
      'fresh-far.txt',
    ]);
    expect(r.stderr).toMatch(/1 uploaded, 0 skipped, 1 failed/);
  });
});

describe('media upload --skip-existing on a service without the /cdn route (the platform)', () => {
  it('an API origin that answers /cdn/… with a page of its own is not taken for the file: the media URL is read', async () => {
    const content = 'platform bytes\n';
    const fake = await startListener((req, res) => {
      const url = req.url ?? '';
      if (url.startsWith('/api/media')) {
        const medium = {
          id: 'm1',
          ownerID: 't',
          ownerType: 'token',
          publicID: 'acme/main/m1/platform.txt',
          fileName: 'platform.txt',
          entityType: 'medium',
          resourceInfo: {
            type: 'raw',
            bytes: Buffer.byteLength(content),
            url: `${fake.origin}/files/m1/platform.txt`,
            format: 'txt',
            mimeType: 'text/plain',
          },
        };
        sendJson(res, 200, { total: 1, limit: 1000, offset: 0, data: [medium] });
      } else if (url === '/files/m1/platform.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(content);
      } else if (url.startsWith('/cdn/')) {
        // A web app's catch-all: 200 and a page, for any path.
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><title>app</title>');
      } else sendJson(res, 404, { statusCode: 404, message: 'not found', type: 'NotFound' });
    });
    try {
      const path = file('platform.txt', content);
      const cli = cliAgainst({ url: fake.origin }, 'platform-token', srv.configDir);
      const r = await cli(['media', 'upload', '--skip-existing', path]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`skipped ${path}: already there as m1`);
      expect(fake.seen.some((s) => s.method === 'POST')).toBe(false);
    } finally {
      await fake.close();
    }
  });
});
