/**
 * Fuzz: seeded, bounded fast-check runs of hostile requests against every route of a real app
 * on a temp SQLite file. Properties: no 5xx but 501/507, the error envelope on every error, and
 * a user (and medium) of another branch byte-for-byte unchanged afterwards.
 * FUZZ_RUNS / FUZZ_SEED widen or replay a run (`FUZZ_RUNS=20000 npx vitest run test/fuzz`).
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeFixtures } from '../../fixtures/make-fixtures.mjs';
import { sql } from '../helpers/database.js';
import { startServer, type TestServer, V3 } from '../helpers/server.js';
import { upload } from '../server/media/media-helpers.js';
import {
  type FuzzRequest,
  fuzzRequest,
  rawRequest,
  type Targets,
  userWrite,
} from './arbitraries.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);

let s: TestServer;
let targets: Targets;
let tokens: Record<FuzzRequest['auth'], string | null>;
let victimToken: string;

/** Everything stored about the victim: its row, its medium's row and file, as the API shows them. */
async function victimState() {
  const [row] = await sql(s.store, 'SELECT * FROM users WHERE id = ?', targets.victimId);
  const [medium] = await sql(s.store, 'SELECT * FROM media WHERE id = ?', targets.victimMediumId);
  const api = await s.req('GET', `/api/users/${targets.victimId}`, {
    headers: { accept: V3 },
    token: victimToken,
  });
  const file = await s.req('GET', `/cdn/${targets.victimPublicId}`, { token: victimToken });
  return JSON.stringify({ row, medium, api: api.text, file: file.text });
}

beforeAll(async () => {
  const { paths } = await makeFixtures();
  s = await startServer();
  victimToken = await s.token({ branch: 'other' });
  const victim = await s.req('POST', '/api/users', {
    headers: { 'content-type': V3, accept: V3 },
    body: JSON.stringify({
      email: 'victim@example.com',
      externalId: 'victim-ext',
      sendMail: false,
      profile: { firstName: 'Vic', lastName: 'Tim' },
    }),
    token: victimToken,
  });
  const medium = await upload(s, readFileSync(paths.png), 'victim.png', { token: victimToken });
  const own = await s.req('POST', '/api/users', {
    headers: { 'content-type': V3, accept: V3 },
    body: JSON.stringify({ email: 'own@example.com', sendMail: false }),
  });
  const ownMedium = await upload(s, readFileSync(paths.png), 'own.png');
  expect([victim.status, medium.status, own.status, ownMedium.status]).toEqual([
    201, 200, 201, 200,
  ]);
  targets = {
    victimId: victim.json.id,
    victimExternalId: 'victim-ext',
    victimMediumId: medium.json.id,
    victimPublicId: medium.json.publicID,
    ownUserId: own.json.id,
    ownMediumId: ownMedium.json.id,
  };
  tokens = {
    fuzz: s.adminToken,
    readOnly: await s.token({ scopes: ['users:read', 'media:read'] }),
    otherTenant: await s.token({ tenant: 'other.example' }),
    none: null,
    garbage: 'bm90OmFzZWNyZXQ=',
  };
});
afterAll(() => s?.close());

async function send(r: FuzzRequest) {
  const token = tokens[r.auth];
  const res = await request(`${s.url}${r.path}`, {
    method: r.method as 'GET',
    headers: { ...r.headers, ...(token ? { authorization: `Basic ${token}` } : {}) },
    body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

/** Requests the client library itself refuses to send are not the server's business. */
const clientRefused = (err: unknown) =>
  err instanceof Error &&
  /invalid|not a valid|Request path|header|method/i.test(err.message) &&
  !/ECONNRESET|other side closed|socket/i.test(err.message);

describe('fuzz: every route under hostile requests', () => {
  test('no 5xx but 501/507, the envelope on every error, another branch unchanged', async () => {
    const before = await victimState();
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(fuzzRequest(targets), userWrite(targets)), async (r) => {
        let res: Awaited<ReturnType<typeof send>>;
        try {
          res = await send(r);
        } catch (err) {
          if (clientRefused(err)) return;
          throw err;
        }
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        expect(res.status < 500 || res.status === 501 || res.status === 507, res.text).toBe(true);
        if (res.status >= 400 && r.method !== 'HEAD') {
          expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
          const envelope = JSON.parse(res.text);
          expect(envelope).toMatchObject({
            statusCode: res.status,
            identifier: expect.any(Number),
            type: expect.any(String),
            message: expect.any(String),
          });
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    process.stderr.write(`fuzz statuses: ${JSON.stringify([...seen].sort())}\n`);
    expect(await victimState()).toBe(before);
    // The run reached past authentication and validation, not only 401s and 404s.
    expect([...seen.keys()].filter((code) => code < 300).length).toBeGreaterThan(0);
    expect(seen.get(400) ?? 0).toBeGreaterThan(0);
  }, 120_000);
});

/** Sends raw bytes on a fresh connection and reads until the server closes it. */
function sendRaw(raw: string): Promise<string> {
  const { port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(raw));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' || err.code === 'EPIPE'
        ? resolve(Buffer.concat(chunks).toString('latin1'))
        : reject(err),
    );
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

describe('fuzz: malformed HTTP on the wire', () => {
  test('every answer is a status line; errors are JSON (the envelope when the app shaped them)', async () => {
    const before = await victimState();
    const rawSeen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(rawRequest(targets), async (raw) => {
        const answer = await sendRaw(raw);
        if (answer === '') return; // closed without an answer (Node does so for some garbage)
        const status = /^HTTP\/1\.[01] (\d{3}) /.exec(answer);
        expect(status, answer.slice(0, 200)).not.toBeNull();
        const code = Number(status![1]);
        rawSeen.set(code, (rawSeen.get(code) ?? 0) + 1);
        expect(code < 500 || code === 501 || code === 507, answer.slice(0, 300)).toBe(true);
        const [head, ...rest] = answer.split('\r\n\r\n');
        if (code >= 400 && !/^HEAD /.test(raw) && !/^Transfer-Encoding: chunked/im.test(head!)) {
          expect(head, answer.slice(0, 300)).toMatch(/^content-type: application\/json/im);
          const body = JSON.parse(rest.join('\r\n\r\n'));
          expect(body).toMatchObject({ statusCode: code, type: expect.any(String) });
        }
      }),
      { seed: SEED, numRuns: Math.ceil(RUNS / 3), endOnFailure: true },
    );
    process.stderr.write(`fuzz raw statuses: ${JSON.stringify([...rawSeen].sort())}\n`);
    expect(await victimState()).toBe(before);
    // Node's parser refused some (400/431), the app answered others.
    expect(rawSeen.get(400) ?? 0).toBeGreaterThan(0);
  }, 120_000);
});
