import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SIGNING_SECRET_KEY } from '../../../src/server/app.js';
import { urlSigner } from '../../../src/server/cdn/signing.js';
import { validating } from '../../helpers/openapi-validation.js';
import { serverForTest, startServer, type TestServer } from '../../helpers/server.js';
import { fixtures, multipart, read, upload } from '../media/media-helpers.js';

let s: TestServer;
let png: Buffer;
let m: any;
beforeAll(async () => {
  const [server, files] = await Promise.all([startServer(), fixtures()]);
  // Every answer seen through s.req is held to the OpenAPI document's /cdn operations.
  s = validating(server);
  png = read(files.png);
  m = (await upload(s, png, 'photo.png')).json;
});
afterAll(() => s.close());

/** The path and query of a URL, for s.req (which adds the token unless told not to). */
const local = (url: string) => url.slice(s.url.length);
const anon = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  s.req(method, local(url), { token: null, headers });

describe('validators and ranges', () => {
  test('200 with ETag, Last-Modified, Accept-Ranges and a public, bounded Cache-Control', async () => {
    const r = await anon(m.resourceInfo.url);
    expect(r.status).toBe(200);
    expect(r.headers.etag).toBe(`"${m.id}"`);
    expect(r.headers['accept-ranges']).toBe('bytes');
    expect(r.headers['last-modified']).toBeDefined();
    expect(r.headers['content-length']).toBe(String(png.length));
    const maxAge = Number(/public, max-age=(\d+)/.exec(r.headers['cache-control']!)?.[1]);
    expect(maxAge).toBeGreaterThan(23 * 3600);
    expect(maxAge).toBeLessThanOrEqual(25 * 3600);
    expect(r.headers['content-disposition']).toBe(
      `inline; filename="photo.png"; filename*=UTF-8''photo.png`,
    );
  });

  test('If-None-Match → 304 without a body; a stale tag → 200', async () => {
    const r = await anon(m.resourceInfo.url, { 'if-none-match': `"${m.id}"` });
    expect(r.status).toBe(304);
    expect(r.text).toBe('');
    expect(r.headers.etag).toBe(`"${m.id}"`);
    const stale = await anon(m.resourceInfo.url, { 'if-none-match': '"other"' });
    expect(stale.status).toBe(200);
  });

  test('Range → 206 with the exact bytes; suffix and open ranges; 416 past the end', async () => {
    const res = await fetch(m.resourceInfo.url, { headers: { range: 'bytes=10-109' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 10-109/${png.length}`);
    expect(Buffer.from(await res.arrayBuffer()).equals(png.subarray(10, 110))).toBe(true);
    const tail = await fetch(m.resourceInfo.url, { headers: { range: 'bytes=-16' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(png.subarray(png.length - 16))).toBe(true);
    const open = await fetch(m.resourceInfo.url, { headers: { range: 'bytes=100-' } });
    expect(Buffer.from(await open.arrayBuffer()).equals(png.subarray(100))).toBe(true);
    const past = await anon(m.resourceInfo.url, { range: `bytes=${png.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${png.length}`);
    // No body, so no body type (it said image/png over nothing).
    expect(past.headers['content-type']).toBeUndefined();
    const multi = await fetch(m.resourceInfo.url, { headers: { range: 'bytes=0-1,5-6' } });
    expect(multi.status).toBe(200);
    await multi.arrayBuffer();
    const changed = await fetch(m.resourceInfo.url, {
      headers: { range: 'bytes=0-9', 'if-range': '"changed"' },
    });
    expect(changed.status).toBe(200);
    expect((await changed.arrayBuffer()).byteLength).toBe(png.length);
  });

  test('HEAD answers the headers only', async () => {
    const r = await anon(m.resourceInfo.url, {}, 'HEAD');
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBe(String(png.length));
    expect(r.headers['content-type']).toBe('image/png');
    expect(r.text).toBe('');
  });

  test('other methods are 405', async () => {
    const r = await anon(m.resourceInfo.url, {}, 'DELETE');
    expect(r.status).toBe(405);
  });
});

describe('who may fetch', () => {
  const path = () => new URL(m.resourceInfo.url).pathname;
  const secret = async () =>
    Buffer.from(
      await s.store.meta.getOrCreate(SIGNING_SECRET_KEY, () => {
        throw new Error('the signing secret is missing');
      }),
      'base64url',
    );

  test('no signature and no token → 401; tampered signature, expiry or path → 403', async () => {
    const unsigned = await s.req('GET', path(), { token: null });
    expect(unsigned.status).toBe(401);
    expect(unsigned.json.identifier).toBe(40102);
    const url = new URL(m.resourceInfo.url);
    const sig = url.searchParams.get('signature')!;
    const expires = url.searchParams.get('expires')!;
    const tampered = [
      `expires=${expires}&signature=${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`,
      `expires=${Number(expires) + 3600}&signature=${sig}`,
      `expires=${expires}`,
      `signature=${sig}`,
      `expires=${expires}&signature=`,
    ];
    for (const query of tampered) {
      const r = await s.req('GET', `${path()}?${query}`, { token: null });
      expect(r.status, query).toBe(403);
      expect(r.json.identifier, query).toBe(40308);
      expect(r.text).not.toContain('PNG');
    }
    // The signature of one file does not open another path.
    const other = path().replace('photo.png', 'other.png');
    expect((await s.req('GET', `${other}${url.search}`, { token: null })).status).toBe(403);
  });

  test('an expired signature → 403 saying so', async () => {
    const signer = urlSigner(await secret(), 60);
    const publicPath = decodeURIComponent(path().slice('/cdn/'.length));
    const old = signer.sign(publicPath, Date.now() - 3 * 3600 * 1000);
    const r = await s.req('GET', `${path()}?${old}`, { token: null });
    expect(r.status).toBe(403);
    expect(r.json.message).toMatch(/expired/);
    const fresh = signer.sign(publicPath);
    expect((await s.req('GET', `${path()}?${fresh}`, { token: null })).status).toBe(200);
  });

  test('a token of the branch with media:read works, privately cached', async () => {
    const r = await s.req('GET', path());
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toMatch(/^private/);
    expect(r.headers.vary).toContain('Authorization');
    // Bearer as well as Basic, as on the API.
    const bearer = { token: null, headers: { authorization: `Bearer ${s.adminToken}` } };
    expect((await s.req('GET', path(), bearer)).status).toBe(200);
    // A broken signature with a good token: the token decides.
    expect((await s.req('GET', `${path()}?expires=1&signature=x`)).status).toBe(200);
  });

  test('tokens without media:read, of another branch or tenant, or invalid are refused', async () => {
    const noRead = await s.token({ scopes: ['media:write'] });
    expect((await s.req('GET', path(), { token: noRead })).status).toBe(401);
    const otherBranch = await s.token({ branch: 'cdn-other' });
    const r = await s.req('GET', path(), { token: otherBranch });
    expect(r.status).toBe(404);
    // Another tenant's token is invalid on this host (as on the API); on its own host, this
    // tenant's path does not exist for it.
    const otherTenant = await s.token({ tenant: 'cdn.example.com' });
    expect((await s.req('GET', path(), { token: otherTenant })).status).toBe(401);
    const onItsHost = { token: otherTenant, headers: { host: 'cdn.example.com' } };
    expect((await s.req('GET', path(), onItsHost)).status).toBe(404);
    expect((await s.req('GET', path(), { token: 'bm9wZTpub3Bl' })).status).toBe(401);
    // A token made for SCIM only is no media token, whatever its scopes.
    const scimOnly = await s.token({ scopes: ['media:read'], channels: ['scim'] });
    const refused = await s.req('GET', path(), { token: scimOnly });
    expect(refused.status).toBe(401);
    expect(refused.json.message).toMatch(/made for SCIM only/);
    // Even a valid signature does not open a path whose tenant or branch is not the medium's.
    const swapped = path().replace('/_default/main/', '/_default/cdn-other/');
    expect((await s.req('GET', swapped, { token: otherBranch })).status).toBe(404);
  });

  test('unknown media and files are 404, whatever the credentials', async () => {
    for (const p of [
      `/cdn/_default/main/000000000000000000000000/x.png`,
      `/cdn/_default/main/${m.id}/not-the-name.png`,
      `/cdn/*/main/${m.id}/photo.png`,
      `/cdn/_default/main/${m.id}/t_preview/nope.webp`,
    ]) {
      expect((await s.req('GET', p)).status, p).toBe(404);
    }
  });
});

describe('active content', () => {
  test('HTML is downloaded, never rendered: attachment, sandbox CSP, nosniff', async () => {
    const page = Buffer.from('<!doctype html><html><script>alert(document.cookie)</script></html>');
    const medium = (await upload(s, page, 'page.html')).json;
    expect(medium.resourceInfo).toMatchObject({ type: 'raw', mimeType: 'text/html' });
    const r = await anon(medium.resourceInfo.url);
    expect(r.status).toBe(200);
    expect(r.headers['content-disposition']).toMatch(/^attachment; filename="page\.html"/);
    expect(r.headers['content-security-policy']).toMatch(/(^|;\s*)sandbox(;|$)/);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  test('unknown bytes are application/octet-stream attachments; names are quoted safely', async () => {
    const { body, contentType } = multipart([
      {
        name: 'file',
        data: Buffer.from([0, 1, 2, 3]),
        disposition: `form-data; name="file"; filename*=UTF-8''a%20%22quoted%22%20na%C3%AFve%20name.bin`,
      },
    ]);
    const posted = await s.req('POST', '/api/media', {
      headers: { 'content-type': contentType },
      body,
    });
    const medium = posted.json;
    expect(medium.fileName).toBe('a "quoted" naïve name.bin');
    const r = await anon(medium.resourceInfo.url);
    expect(r.headers['content-type']).toBe('application/octet-stream');
    expect(r.headers['content-disposition']).toBe(
      `attachment; filename="a _quoted_ na_ve name.bin"; filename*=UTF-8''a%20%22quoted%22%20na%C3%AFve%20name.bin`,
    );
  });
});

describe('--cdn-url', () => {
  test('media URLs point at the CDN; the same path and query work on /cdn', async () => {
    const cdn = await serverForTest({ cdnUrl: 'https://cdn.example.com/roster/' });
    const medium = (await upload(cdn, png, 'photo.png')).json;
    expect(medium.resourceInfo.url).toMatch(
      new RegExp(
        `^https://cdn\\.example\\.com/roster/_default/main/${medium.id}/photo\\.png\\?expires=`,
      ),
    );
    const onOrigin = medium.resourceInfo.url.replace('https://cdn.example.com/roster', '/cdn');
    const r = await cdn.req('GET', onOrigin, { token: null });
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBe(String(png.length));
  });
});
