/**
 * cdnAuth: which hosts besides the API's origin a media download sends the token to, and what a
 * 401/403 from a media URL says (MediaAuthError), against small real servers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { userMessage } from '../../src/cli/advice.js';
import { cdnAuthRefusal, parseCdnAuthHost, parseCdnAuthList } from '../../src/client/cdn-auth.js';
import { createApiClient, MediaAuthError } from '../../src/client/index.js';
import { sendJson, startServer } from '../helpers/fake-server.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('the setting', () => {
  it('takes hosts as a URL writes them, lower-cased, without duplicates', () => {
    expect(parseCdnAuthList('Media.Example.com, media.example.com:8443 *.cdn.example.com')).toEqual(
      ['media.example.com', 'media.example.com:8443', '*.cdn.example.com'],
    );
    expect(parseCdnAuthList('a.example.com,a.example.com')).toEqual(['a.example.com']);
    expect(parseCdnAuthList('off')).toEqual([]);
    expect(parseCdnAuthList('')).toEqual([]);
    expect(parseCdnAuthHost('[::1]:8080')).toBe('[::1]:8080');
  });

  it('refuses URLs, every host, default ports and a wildcard with a port', () => {
    for (const bad of [
      'https://media.example.com',
      'media.example.com/path',
      'user@media.example.com',
      '*',
      '*.',
      'media.example.com:443',
      '*.example.com:8443',
      'exa mple.com',
    ]) {
      expect(() => parseCdnAuthHost(bad), bad).toThrow(/is not a cdnAuth host/);
    }
  });

  it('matches the host exactly (port included), a wildcard only below its name', () => {
    const api = new URL('https://acme.example.com/api');
    const check = (hosts: string[], url: string) => cdnAuthRefusal(hosts, new URL(url), api);
    expect(check(['media.example.com'], 'https://media.example.com/a.png')).toBeUndefined();
    expect(check(['media.example.com'], 'https://MEDIA.example.com/a.png')).toBeUndefined();
    expect(check(['media.example.com'], 'https://media.example.com:8443/a')).toBe('not-listed');
    expect(check(['media.example.com:8443'], 'https://media.example.com:8443/a')).toBeUndefined();
    expect(check(['media.example.com'], 'https://evil-media.example.com/a')).toBe('not-listed');
    expect(check(['media.example.com'], 'https://media.example.com.evil.test/a')).toBe(
      'not-listed',
    );
    expect(check(['*.cdn.example.com'], 'https://eu.cdn.example.com/a')).toBeUndefined();
    expect(check(['*.cdn.example.com'], 'https://cdn.example.com/a')).toBe('not-listed');
    expect(check(['*.cdn.example.com'], 'https://xcdn.example.com/a')).toBe('not-listed');
    expect(check(['*.cdn.example.com'], 'https://eu.cdn.example.com:8443/a')).toBe('not-listed');
    expect(check([], 'https://media.example.com/a')).toBe('not-listed');
  });

  it('never over plain http when the API is https', () => {
    const hosts = ['media.example.com'];
    const media = new URL('http://media.example.com/a.png');
    expect(cdnAuthRefusal(hosts, media, new URL('https://acme.example.com/api'))).toBe('not-https');
    expect(cdnAuthRefusal(hosts, media, new URL('http://127.0.0.1:8080/api'))).toBeUndefined();
  });
});

/** A media host that wants the token: 401 (as the real platform's CDN) without it. */
async function mediaHost(token = 'tok') {
  return startServer((req, res) => {
    if (req.headers.authorization !== `Basic ${token}`) {
      res.writeHead(401, { 'content-type': 'text/html' });
      res.end('<html><title>401 Authorization Required</title></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end('PNG bytes');
  });
}

async function text(stream: NodeJS.ReadableStream) {
  let out = '';
  for await (const chunk of stream) out += chunk;
  return out;
}

describe('downloads', () => {
  it('off: the token stays on the API origin, and a 401 says the URL needs authentication', async () => {
    const cdn = await mediaHost();
    const api = await startServer((_req, res) => sendJson(res, 200, {}));
    const client = createApiClient({ baseUrl: api.baseUrl, token: 'tok' });
    cleanup.push(cdn.close, api.close, client.close);
    const err = await client.downloadUrl(`${cdn.origin}/t/photo.png`).catch((e) => e);
    expect(err).toBeInstanceOf(MediaAuthError);
    expect(err.status).toBe(401);
    expect(err.tokenSent).toBe(false);
    expect(err.message).toContain('this media URL needs authentication');
    expect(userMessage(err)).toContain(`roster profiles cdn-auth ${new URL(cdn.origin).host}`);
    expect(userMessage(err)).not.toContain('does not look like the Roster API');
    expect(cdn.seen.map((s) => s.headers.authorization)).toEqual([undefined]);
  });

  it('on for that host: the token goes there and the file comes', async () => {
    const cdn = await mediaHost();
    const api = await startServer((_req, res) => sendJson(res, 200, {}));
    const client = createApiClient({
      baseUrl: api.baseUrl,
      token: 'tok',
      cdnAuth: [new URL(cdn.origin).host],
    });
    cleanup.push(cdn.close, api.close, client.close);
    expect(await text(await client.downloadUrl(`${cdn.origin}/t/photo.png`))).toBe('PNG bytes');
    expect(cdn.seen.map((s) => s.headers.authorization)).toEqual(['Basic tok']);
  });

  it('on for one host, never for another', async () => {
    const allowed = await mediaHost();
    const other = await mediaHost();
    const api = await startServer((_req, res) => sendJson(res, 200, {}));
    const client = createApiClient({
      baseUrl: api.baseUrl,
      token: 'tok',
      cdnAuth: [new URL(allowed.origin).host],
    });
    cleanup.push(allowed.close, other.close, api.close, client.close);
    const err = await client.downloadUrl(`${other.origin}/t/photo.png`).catch((e) => e);
    expect(err).toBeInstanceOf(MediaAuthError);
    expect(other.seen.map((s) => s.headers.authorization)).toEqual([undefined]);
  });

  it('a redirect to another origin drops the token, even to an allowed host', async () => {
    const target = await mediaHost();
    const first = await startServer((_req, res) => {
      res.writeHead(302, { location: `${target.origin}/t/photo.png` });
      res.end();
    });
    const api = await startServer((_req, res) => sendJson(res, 200, {}));
    const client = createApiClient({
      baseUrl: api.baseUrl,
      token: 'tok',
      cdnAuth: [new URL(first.origin).host, new URL(target.origin).host],
    });
    cleanup.push(target.close, first.close, api.close, client.close);
    const err = await client.downloadUrl(`${first.origin}/t/photo.png`).catch((e) => e);
    expect(err).toBeInstanceOf(MediaAuthError);
    expect(err.message).toContain('reached through a redirect to another origin');
    expect(first.seen[0]?.headers.authorization).toBe('Basic tok');
    expect(target.seen.map((s) => s.headers.authorization)).toEqual([undefined]);
  });

  it('a redirect on the same origin keeps it', async () => {
    const cdn = await startServer((req, res) => {
      if (req.url === '/old') {
        res.writeHead(301, { location: '/t/photo.png' });
        res.end();
        return;
      }
      res.writeHead(req.headers.authorization === 'Basic tok' ? 200 : 401);
      res.end('PNG bytes');
    });
    const api = await startServer((_req, res) => sendJson(res, 200, {}));
    const client = createApiClient({
      baseUrl: api.baseUrl,
      token: 'tok',
      cdnAuth: [new URL(cdn.origin).host],
    });
    cleanup.push(cdn.close, api.close, client.close);
    expect(await text(await client.downloadUrl(`${cdn.origin}/old`))).toBe('PNG bytes');
    expect(cdn.seen.map((s) => s.headers.authorization)).toEqual(['Basic tok', 'Basic tok']);
  });

  it('a token sent and refused says so, with the service’s message', async () => {
    const api = await startServer((_req, res) =>
      sendJson(res, 403, {
        identifier: 40300,
        statusCode: 403,
        message: 'the token lacks media:read',
        type: 'AccessDeniedException',
      }),
    );
    const client = createApiClient({ baseUrl: api.baseUrl, token: 'tok' });
    cleanup.push(api.close, client.close);
    const err = await client.downloadUrl('/cdn/t/photo.png').catch((e) => e);
    expect(err).toBeInstanceOf(MediaAuthError);
    expect(err.tokenSent).toBe(true);
    expect(err.message).toContain('It refused the API token: the token lacks media:read.');
    expect(api.seen[0]?.headers.authorization).toBe('Basic tok');
  });
});
