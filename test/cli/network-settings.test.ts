/**
 * The CLI's side of proxies and cdnAuth: the proxy variables as read from the environment, the
 * cdnAuth setting (profile and ROSTER_CDN_AUTH), `roster profiles cdn-auth`, and what reaches
 * the client.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiClient, proxyFromEnv, resolveSettings } from '../../src/cli/client.js';
import { openConfig } from '../../src/cli/config.js';
import { run } from '../../src/cli/main.js';
import type { ApiClientOptions } from '../../src/client/index.js';
import { fakeIO, stubClient, tempConfigDir } from './helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(async () => {
  [dir, cleanup] = tempConfigDir();
  const config = await openConfig({ ROSTER_CONFIG_DIR: dir });
  config.setProfile('prod', {
    baseUrl: 'https://acme.example.com/api',
    token: 'PROD',
    cdnAuth: ['media.example.com'],
  });
  config.setProfile('local', { baseUrl: 'http://127.0.0.1:8080/api', token: 'LOCAL' });
  config.useProfile('prod');
});
afterEach(() => cleanup());

describe('proxy variables', () => {
  it('none set: no proxy (NO_PROXY alone changes nothing)', () => {
    expect(proxyFromEnv({})).toBeUndefined();
    expect(proxyFromEnv({ NO_PROXY: 'example.com', HTTPS_PROXY: '' })).toBeUndefined();
  });

  it('reads both cases, lower case first, and remembers where each came from', () => {
    expect(
      proxyFromEnv({
        https_proxy: 'http://low:3128',
        HTTPS_PROXY: 'http://up:3128',
        HTTP_PROXY: 'http://plain:3128',
        NO_PROXY: 'localhost,.corp.example',
      }),
    ).toEqual({
      https: 'http://low:3128',
      http: 'http://plain:3128',
      noProxy: 'localhost,.corp.example',
      sources: { https: 'https_proxy', http: 'HTTP_PROXY', noProxy: 'NO_PROXY' },
    });
    expect(proxyFromEnv({ HTTPS_PROXY: 'http://up:3128', no_proxy: '*' })).toMatchObject({
      https: 'http://up:3128',
      noProxy: '*',
      sources: { https: 'HTTPS_PROXY', noProxy: 'no_proxy' },
    });
  });

  it('a proxy without a scheme is http://; anything but http(s) is refused, without its password', () => {
    expect(proxyFromEnv({ HTTPS_PROXY: 'proxy.corp:3128' })?.https).toBe('http://proxy.corp:3128');
    expect(() => proxyFromEnv({ HTTPS_PROXY: 'socks5://user:secret@proxy.corp:1080' })).toThrow(
      /^HTTPS_PROXY='socks5:\/\/…@proxy\.corp:1080' is not an http\(s\) proxy URL/,
    );
    expect(() => proxyFromEnv({ http_proxy: 'http://' })).toThrow(/http_proxy=/);
  });

  it('reach the client as they are; --verbose names the proxy but not its password', async () => {
    const fake = fakeIO();
    let seen: ApiClientOptions | undefined;
    await apiClient(
      { verbose: true },
      {
        io: fake.io,
        env: {
          ROSTER_CONFIG_DIR: dir,
          HTTP_PROXY: 'http://user:secret@proxy.corp:3128',
          NO_PROXY: 'localhost',
        },
        connect: (o) => {
          seen = o;
          return stubClient({}).client;
        },
      },
    );
    expect(seen?.proxy).toMatchObject({
      http: 'http://user:secret@proxy.corp:3128',
      noProxy: 'localhost',
    });
    expect(fake.err()).toContain(
      'https:// URLs go through the proxy http://proxy.corp:3128 (HTTP_PROXY), except localhost (NO_PROXY)',
    );
    expect(fake.err()).not.toContain('secret');
  });
});

describe('cdnAuth', () => {
  const resolve = (globals: Record<string, string>, env: Record<string, string> = {}) =>
    resolveSettings(globals, { ROSTER_CONFIG_DIR: dir, ...env });

  it('comes from the profile whose token is used', async () => {
    expect((await resolve({})).cdnAuth).toEqual(['media.example.com']);
    expect((await resolve({ profile: 'local' })).cdnAuth).toBeUndefined();
  });

  it('never goes with another token: ROSTER_TOKEN does not get the profile’s hosts', async () => {
    expect((await resolve({}, { ROSTER_TOKEN: 'OTHER' })).cdnAuth).toBeUndefined();
  });

  it('ROSTER_CDN_AUTH overrides it (off included), and is checked', async () => {
    expect((await resolve({}, { ROSTER_CDN_AUTH: 'off' })).cdnAuth).toEqual([]);
    expect(
      (await resolve({}, { ROSTER_TOKEN: 'T', ROSTER_CDN_AUTH: 'a.example.com,b.example.com' }))
        .cdnAuth,
    ).toEqual(['a.example.com', 'b.example.com']);
    await expect(resolve({}, { ROSTER_CDN_AUTH: 'https://a.example.com' })).rejects.toThrow(
      /cdnAuth \(ROSTER_CDN_AUTH\): 'https:\/\/a\.example\.com' is not a cdnAuth host/,
    );
  });

  it('reaches the client', async () => {
    let seen: ApiClientOptions | undefined;
    await apiClient(
      {},
      {
        io: fakeIO().io,
        env: { ROSTER_CONFIG_DIR: dir },
        connect: (o) => {
          seen = o;
          return stubClient({}).client;
        },
      },
    );
    expect(seen?.cdnAuth).toEqual(['media.example.com']);
    expect(seen?.proxy).toBeUndefined();
  });
});

describe('roster profiles cdn-auth', () => {
  const profiles = () =>
    JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles as Record<
      string,
      { cdnAuth?: string[] }
    >;
  const cli = async (args: string[], env: Record<string, string> = {}) => {
    const fake = fakeIO();
    const code = await run(['node', 'roster', 'profiles', 'cdn-auth', ...args], {
      io: fake.io,
      env: { ROSTER_CONFIG_DIR: dir, ...env },
    });
    return { code, err: fake.err() };
  };

  it('shows the setting of the current profile', async () => {
    const r = await cli([]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(
      "profile 'prod': media downloads send the token to https://acme.example.com and, over https, to media.example.com",
    );
  });

  it('sets the hosts of --profile, replacing the list', async () => {
    const r = await cli(['--profile', 'local', 'Media.Example.com', '*.cdn.example.com']);
    expect(r.code).toBe(0);
    expect(profiles().local?.cdnAuth).toEqual(['media.example.com', '*.cdn.example.com']);
    expect(profiles().prod?.cdnAuth).toEqual(['media.example.com']);
  });

  it('--off removes it', async () => {
    const r = await cli(['--off']);
    expect(r.code).toBe(0);
    expect(r.err).toContain(
      "profile 'prod': cdnAuth is off; the token goes to https://acme.example.com only",
    );
    expect(profiles().prod).not.toHaveProperty('cdnAuth');
  });

  it('refuses a URL (exit 2) and an unknown profile (exit 4), changing nothing', async () => {
    const bad = await cli(['https://media.example.com/x']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('is not a cdnAuth host (a host, not a URL)');
    expect((await cli(['--profile', 'nope', 'a.example.com'])).code).toBe(4);
    expect((await cli(['--off', 'a.example.com'])).code).toBe(2);
    expect(profiles().prod?.cdnAuth).toEqual(['media.example.com']);
  });
});
