/**
 * `stopsRun`: the one rule for which failures end a run of many requests (import rows, batch
 * ids, uploads). The errors are the client's own, made by real requests to real servers where
 * a server can make them.
 */
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  MediaAuthError,
  NetworkError,
  RequiredFieldsError,
  ResponseFormatError,
  stopsRun,
} from '../../src/client/errors.js';
import { createHttpClient } from '../../src/client/http.js';
import { getUser } from '../../src/client/users.js';
import {
  freePort,
  knownServer,
  sendJson,
  startServer,
  type FakeServer as TestServer,
} from '../helpers/fake-server.js';

const FAST = { baseDelayMs: 1, maxDelayMs: 2, maxRetries: 1, maxTotalWaitMs: 1_000 };

let answers: TestServer;
let resetting: Server;
let resetUrl: string;
beforeAll(async () => {
  // GET /api/users/<status>[-html] answers that status, as the envelope or as an HTML page.
  answers = await startServer((req, res) => {
    const [, status = '404', html] = /\/users\/(\d+)(-html)?/.exec(req.url ?? '') ?? [];
    if (html) {
      res.writeHead(Number(status), { 'content-type': 'text/html' });
      res.end('<html><title>nginx</title></html>');
      return;
    }
    if (status === '0') return; // never answers
    sendJson(res, Number(status), {
      identifier: Number(status) * 100,
      statusCode: Number(status),
      message: `answered ${status}`,
      type: 'SomeException',
    });
  });
  resetting = createServer();
  resetting.on('connection', (socket) => socket.once('data', () => socket.destroy()));
  await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
  resetUrl = `http://127.0.0.1:${(resetting.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  await answers?.close();
  resetting?.close();
});

/** What `GET /users/<id>` on `baseUrl` rejects with. */
async function failureOf(baseUrl: string, id: string, timeoutMs = 30_000) {
  const http = createHttpClient({
    baseUrl,
    token: 'dG9rZW4=',
    retry: FAST,
    memory: knownServer,
    timeoutMs,
  });
  try {
    return await getUser(http, id).then(
      () => {
        throw new Error('expected a failure');
      },
      (err: unknown) => err,
    );
  } finally {
    await http.close();
  }
}

describe('stopsRun: failures every other request would share stop the run', () => {
  it.each([
    ['401: the token was refused', '401', ApiError],
    ['403: the token may not do this', '403', ApiError],
    ['200 with an HTML page: the base URL is not the API', '200-html', ResponseFormatError],
    ['404 with an HTML page: the base URL is not the API', '404-html', ResponseFormatError],
  ])('%s', async (_what, id, type) => {
    const err = await failureOf(answers.baseUrl, id);
    expect(err).toBeInstanceOf(type);
    expect(stopsRun(err)).toBe(true);
  });

  it('the service refuses connections, or does not answer', async () => {
    const refused = await failureOf(`http://127.0.0.1:${await freePort()}/api`, 'x');
    expect(refused).toMatchObject({ code: 'ECONNREFUSED' });
    expect(stopsRun(refused)).toBe(true);
    const silent = await failureOf(answers.baseUrl, '0', 50);
    expect(silent).toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(stopsRun(silent)).toBe(true);
  });

  it('a field every create needs, a media URL refusing the token, a bug', () => {
    const url = 'http://api.test/api/users';
    const required = new RequiredFieldsError({
      fields: ['role'],
      mediaType: 'x',
      method: 'POST',
      url,
    });
    const media = new MediaAuthError({ status: 401, url, apiOrigin: 'http://api.test' });
    expect(stopsRun(required)).toBe(true);
    expect(stopsRun(media)).toBe(true);
    expect(stopsRun(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(
      true,
    );
  });
});

describe("stopsRun: one item's own failure does not", () => {
  it.each([
    ['400: this body is invalid', '400', ApiError],
    ['404: this entity is missing', '404', ApiError],
    ['409: this one conflicts', '409', ApiError],
    ['413: this body is too large', '413', ApiError],
    ['413 from a proxy, as its HTML page', '413-html', ResponseFormatError],
    ['502 from a proxy, as its HTML page', '502-html', ResponseFormatError],
  ])('%s', async (_what, id, type) => {
    const err = await failureOf(answers.baseUrl, id);
    expect(err).toBeInstanceOf(type);
    expect(stopsRun(err)).toBe(false);
  });

  it('a connection reset mid-answer (the next request connects anew)', async () => {
    const err = await failureOf(resetUrl, 'x');
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toMatch(/^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/);
    expect(stopsRun(err)).toBe(false);
  });

  it('a local file that cannot be read', async () => {
    const err = await stat('/nonexistent/roster/photo.png').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ENOENT' });
    expect(stopsRun(err)).toBe(false);
  });
});
