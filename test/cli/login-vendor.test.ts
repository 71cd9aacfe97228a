/**
 * `roster login` without --vendor against a service whose 406 repeats the media type asked for
 * (the real platform does): a real HTTP server on a real port, the CLI's run() in process.
 */
import { afterEach, expect, it } from 'vitest';
import { openConfig } from '../../src/cli/config.js';
import { cliWith } from '../helpers/cli-run.js';
import { type FakeServer, sendJson, startServer } from '../helpers/fake-server.js';
import { tempConfigDir } from './helpers.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const PAGE = { total: 0, limit: 1, offset: 0, data: [] };

/** Answers 401 without a token, its vendor's users.v2 with one, and a 406 echoing anything else. */
async function platformLike(vendor: string): Promise<FakeServer> {
  const server = await startServer((req, res) => {
    if (req.url === '/api') return sendJson(res, 404, { message: 'Not Found' });
    if (!req.headers.authorization) {
      return sendJson(res, 401, { identifier: 40100, statusCode: 401, message: 'Unauthorized' });
    }
    if (req.headers.accept === `application/vnd.${vendor}.accessors.users.v2+json`) {
      return sendJson(res, 200, PAGE);
    }
    sendJson(res, 406, {
      identifier: 40600,
      statusCode: 406,
      type: 'NotAcceptableException',
      message: `Media type ${req.headers.accept} is not acceptable`,
    });
  });
  cleanup.push(server.close);
  return server;
}

it('learns the vendor from what the service accepts, not from its echo; --verbose names it', async () => {
  const server = await platformLike('staffbase');
  const [dir, remove] = tempConfigDir();
  cleanup.push(remove);
  const cli = cliWith({ ROSTER_CONFIG_DIR: dir });
  const r = await cli([
    ...['login', '--verbose', '--base-url', server.baseUrl, '--token', 'T'],
    ...['--profile', 'platform'],
  ]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain("media types of vendor 'staffbase'");
  expect((await openConfig({ ROSTER_CONFIG_DIR: dir })).profile('platform')).toMatchObject({
    baseUrl: server.baseUrl,
    vendor: 'staffbase',
  });
});

it('a service no known vendor word reaches: the 406 after each was tried', async () => {
  const server = await platformLike('nobody');
  const [dir, remove] = tempConfigDir();
  cleanup.push(remove);
  const cli = cliWith({ ROSTER_CONFIG_DIR: dir });
  const r = await cli(['login', '--base-url', server.baseUrl, '--token', 'T']);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('406');
  const tried = server.seen.map((s) => s.headers.accept).filter((a) => a?.includes('vnd.'));
  expect(tried).toEqual([
    'application/vnd.service.accessors.users.v2+json',
    'application/vnd.service.accessors.users.v2+json',
    'application/vnd.staffbase.accessors.users.v2+json',
  ]);
});
