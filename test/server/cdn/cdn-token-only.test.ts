/**
 * `serve --cdn-token-only` (config.cdnTokenOnly): media URLs need authentication, as on the real
 * platform since 2026-03. URLs come unsigned, /cdn answers 401 without the token and ignores a
 * signature, and the usual token rules hold (another branch 404, another tenant's token 401).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SIGNING_SECRET_KEY } from '../../../src/server/app.js';
import { urlSigner } from '../../../src/server/cdn/signing.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { fixtures, read, upload } from '../media/media-helpers.js';

let s: TestServer;
let png: Buffer;
let m: any;
beforeAll(async () => {
  const [server, files] = await Promise.all([startServer({ cdnTokenOnly: true }), fixtures()]);
  s = server;
  png = read(files.png);
  m = (await upload(s, png, 'photo.png')).json;
});
afterAll(() => s.close());

const local = (url: string) => url.slice(s.url.length);

test('media URLs carry no signature, and /cdn refuses them without the token (401)', async () => {
  expect(m.resourceInfo.url).toMatch(/\/cdn\/_default\/main\/[0-9a-f]{24}\/photo\.png$/);
  expect(m.transformations.t_preview.resourceInfo.url).not.toContain('?');
  const r = await s.req('GET', local(m.resourceInfo.url), { token: null });
  expect(r.status).toBe(401);
  expect(r.json.message).toContain('need authentication');
  expect(r.json.message).toContain('Authorization: Basic');
});

test('the token of the medium’s branch gets the file, privately cached', async () => {
  const r = await s.req('GET', local(m.resourceInfo.url));
  expect(r.status).toBe(200);
  expect(Buffer.from(r.text, 'latin1').length).toBeGreaterThan(0);
  expect(r.headers['cache-control']).toMatch(/^private/);
  expect(r.headers.vary).toBe('Authorization');
});

test('a valid signature counts for nothing: still 401 without the token', async () => {
  const secret = await s.store.meta.getOrCreate(SIGNING_SECRET_KEY, () => 'unused');
  const path = m.publicID as string;
  const query = urlSigner(Buffer.from(secret, 'base64url')).sign(path);
  const r = await s.req('GET', `${local(m.resourceInfo.url)}?${query}`, { token: null });
  expect(r.status).toBe(401);
});

test('another branch’s token: 404; a token without media:read: 401', async () => {
  const other = await s.token({ branch: 'other' });
  expect((await s.req('GET', local(m.resourceInfo.url), { token: other })).status).toBe(404);
  const usersOnly = await s.token({ scopes: ['users:read'] });
  expect((await s.req('GET', local(m.resourceInfo.url), { token: usersOnly })).status).toBe(401);
});
