/**
 * Preview slots under pressure, through the real app: a busy token does not hold up another
 * tenant's upload, and an upload whose client left before the commit point is not stored.
 */

import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApp } from '../../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../../src/server/config.js';
import { previewScheduler } from '../../../src/server/media/preview-scheduler.js';
import type { Store } from '../../../src/store/store.js';
import { TEST_AUDIT } from '../../helpers/audit.js';
import { openTestStore } from '../../helpers/database.js';
import { eventually } from '../../helpers/eventually.js';
import { scratch } from '../../helpers/scratch.js';
import { requester } from '../../helpers/server.js';
import { blobKeys, fixtures, tempFiles, uploadBody } from './media-helpers.js';

const dirs = scratch();

const dataDir = dirs.temp('roster-fair-');
let store: Store;
let app: Awaited<ReturnType<typeof createApp>>;
let dispose: () => Promise<void>;
let url: string;
/** The server's side of each connection, by the client's port. */
const serverSockets = new Map<number, Socket>();
let admin: string;
let png: Buffer;
/** Preview tasks of the token 'busy' wait here until the test lets them go. */
let release!: () => void;
const held = new Promise<void>((resolve) => {
  release = resolve;
});
const entered: string[] = [];
/** When set, the next preview task waits for it (once). */
let gateNext: Promise<void> | undefined;
const logs: string[] = [];

beforeAll(async () => {
  ({ store, dispose } = await openTestStore(dataDir));
  admin = (await store.bootstrap())!.adminToken;
  png = readFileSync((await fixtures()).png);
  const fair = previewScheduler({ slots: 2, maxQueuedPerKey: 8, maxWaitMs: 60_000 });
  app = await createApp({
    store,
    config: {
      dataDir,
      vendor: 'service',
      maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
      accessLog: true,
      // Never reached here: the last test reads whether it is armed, not whether it fires.
      uploadIdleTimeoutMs: 60_000,
    },
    log: (line) => logs.push(line),
    previewScheduler: (key, task) =>
      fair(key, async () => {
        entered.push(key);
        if (key.endsWith(busyTokenId())) await held;
        const gate = gateNext;
        gateNext = undefined;
        if (gate) await gate;
        return task();
      }),
  });
  const running = await app.listen(0);
  running.server.on('connection', (socket: Socket) =>
    serverSockets.set(socket.remotePort!, socket),
  );
  url = running.url;
});
afterAll(async () => {
  release();
  await app.close();
  await dispose();
  await dirs.cleanup();
});

const busyTokenId = () => Buffer.from(admin, 'base64').toString().split(':')[0]!;
const post = (token: string, host?: string) => {
  const { body, contentType } = uploadBody(png, 'dot.png');
  return requester(url, token)('POST', '/api/media', {
    headers: { 'content-type': contentType, ...(host ? { host } : {}) },
    body,
  });
};

test("a token with previews stuck in every slot it may use does not hold up another tenant's upload", async () => {
  const stuck = [post(admin), post(admin), post(admin)];
  await eventually(() => entered.length === 1);
  const tenant = await store.tenants.add('other.example.com');
  const branch = (await store.branches.byName(tenant.id, 'main'))!;
  const other = (
    await store.tokens.create(
      branch.id,
      'other',
      ['media:read', 'media:write'],
      ['api'],
      TEST_AUDIT,
    )
  ).secret;
  const r = await post(other, 'other.example.com');
  expect(r.status).toBe(200);
  expect(r.json.transformations.t_preview).toBeDefined();
  release();
  for (const s of await Promise.all(stuck)) expect(s.status).toBe(200);
});

test('an upload whose client left before the commit point is not stored', async () => {
  const rowsBefore = (await store.media.allKeys()).length;
  const blobsBefore = (await blobKeys({ store })).length;
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const waiting = entered.length;
  gateNext = gate;
  const { body, contentType } = uploadBody(png, 'gone.png');
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  const closed = new Promise((r) => socket.once('close', r));
  socket.write(
    `POST /api/media HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${admin}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  // The whole body, with the connection left open: the client leaves only once its upload is
  // in the preview stage (a half-close right away could end it before the upload began).
  socket.write(body);
  await eventually(() => entered.length > waiting);
  socket.destroy();
  await closed;
  letGo();
  await eventually(() => logs.some((l) => l.startsWith('POST /api/media 400')));
  expect(await tempFiles({ store })).toEqual([]);
  expect(await store.media.allKeys()).toHaveLength(rowsBefore);
  expect(await blobKeys({ store })).toHaveLength(blobsBefore);
});

test('time an upload waits for a preview slot is not idle time of its connection', async () => {
  let letGo!: () => void;
  gateNext = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const waiting = entered.length;
  const { body, contentType } = uploadBody(png, 'slow.png');
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk) => {
    answer += chunk;
  });
  const ended = new Promise((r) => socket.once('end', r));
  await new Promise((r) => socket.once('connect', r));
  const serverSide = () => serverSockets.get(socket.localPort!);
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /api/media HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${admin}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(body.subarray(0, half));
  // While the body arrives, a client that stops sending is cut after the idle timeout…
  await eventually(() => serverSide()?.timeout === 60_000);
  socket.write(body.subarray(half));
  await eventually(() => entered.length > waiting);
  // …and once it is in, the server's own wait for a preview slot does not count.
  expect(serverSide()?.timeout).toBe(0);
  letGo();
  await ended;
  expect(answer).toMatch(/^HTTP\/1.1 200 /);
  const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  expect(json.transformations.t_preview).toBeDefined();
});
