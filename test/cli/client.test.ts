import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiClient, resolveSettings, retryNotice } from '../../src/cli/client.js';
import { openConfig } from '../../src/cli/config.js';
import { CliError } from '../../src/cli/errors.js';
import { fakeIO, stubClient, tempConfigDir } from './helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(async () => {
  [dir, cleanup] = tempConfigDir();
  const config = await openConfig({ ROSTER_CONFIG_DIR: dir });
  config.setProfile('local', { baseUrl: 'http://local.test/api', token: 'LOCAL' });
  config.setProfile('prod', {
    baseUrl: 'https://prod.test/api',
    baseUrlDe: 'https://prod.de.test/api',
    token: 'PROD',
    vendor: 'acme',
  });
});
afterEach(() => cleanup());

const resolve = (globals: Record<string, string>, env: Record<string, string> = {}) =>
  resolveSettings(globals, { ROSTER_CONFIG_DIR: dir, ...env });

describe('resolveSettings: flags > env > profile', () => {
  it.each([
    ['the current profile', {}, {}, 'http://local.test/api', 'LOCAL', undefined],
    ['ROSTER_PROFILE', {}, { ROSTER_PROFILE: 'prod' }, 'https://prod.test/api', 'PROD', 'acme'],
    [
      '--profile over ROSTER_PROFILE',
      { profile: 'local' },
      { ROSTER_PROFILE: 'prod' },
      'http://local.test/api',
      'LOCAL',
      undefined,
    ],
    [
      'ROSTER_BASE_URL over the profile',
      {},
      { ROSTER_BASE_URL: 'http://env.test/api' },
      'http://env.test/api',
      'LOCAL',
      undefined,
    ],
    [
      'ROSTER_TOKEN over the profile',
      {},
      { ROSTER_TOKEN: 'ENV' },
      'http://local.test/api',
      'ENV',
      undefined,
    ],
    [
      '--base-url over ROSTER_BASE_URL',
      { baseUrl: 'http://flag.test/api' },
      { ROSTER_BASE_URL: 'http://env.test/api' },
      'http://flag.test/api',
      'LOCAL',
      undefined,
    ],
    [
      '--profile over ROSTER_BASE_URL/TOKEN',
      { profile: 'prod' },
      { ROSTER_BASE_URL: 'http://env.test/api', ROSTER_TOKEN: 'ENV' },
      'https://prod.test/api',
      'PROD',
      'acme',
    ],
    [
      '--region de',
      { profile: 'prod', region: 'de' },
      {},
      'https://prod.de.test/api',
      'PROD',
      'acme',
    ],
    [
      '--base-url over --region',
      { profile: 'prod', region: 'de', baseUrl: 'http://flag.test/api' },
      {},
      'http://flag.test/api',
      'PROD',
      'acme',
    ],
  ])('%s', async (_name, globals, env, baseUrl, token, vendor) => {
    const s = await resolve(globals as Record<string, string>, env as Record<string, string>);
    expect([s.baseUrl, s.token, s.vendor]).toEqual([baseUrl, token, vendor]);
  });

  it('never opens the config file when env supplies base URL and token', async () => {
    const s = await resolveSettings(
      {},
      { ROSTER_BASE_URL: 'http://env.test/api', ROSTER_TOKEN: 'ENV' },
      () => {
        throw new Error('config opened');
      },
    );
    expect(s.sources).toEqual({ baseUrl: 'ROSTER_BASE_URL', token: 'ROSTER_TOKEN' });
    expect(s.profile).toBeUndefined();
  });

  it.each([
    [
      'ROSTER_BASE_URL elsewhere',
      {},
      { ROSTER_BASE_URL: 'http://env.test/api' },
      'ROSTER_BASE_URL',
    ],
    ['--base-url elsewhere', { baseUrl: 'http://flag.test/api' }, {}, '--base-url'],
    [
      '--profile, --base-url elsewhere',
      { profile: 'prod', baseUrl: 'http://flag.test/api' },
      {},
      '--base-url',
    ],
  ])(
    "%s with the profile's token: marked unbound (token-binding.ts asks or refuses)",
    async (_n, globals, env, from) => {
      const s = await resolve(globals as Record<string, string>, env as Record<string, string>);
      expect(s.unbound).toMatchObject({ from });
    },
  );

  it.each([
    ['the profile alone', {}, {}],
    ['--region de (its German URL)', { profile: 'prod', region: 'de' }, {}],
    ['the same origin, another path', { baseUrl: 'http://local.test/other' }, {}],
    ['ROSTER_TOKEN with --base-url', { baseUrl: 'http://flag.test/api' }, { ROSTER_TOKEN: 'ENV' }],
  ])('%s: bound', async (_n, globals, env) => {
    const s = await resolve(globals as Record<string, string>, env as Record<string, string>);
    expect(s.unbound).toBeUndefined();
  });

  it('takes ROSTER_VENDOR over the profile vendor', async () => {
    const s = await resolve({ profile: 'prod' }, { ROSTER_VENDOR: 'other' });
    expect(s.vendor).toBe('other');
  });
});

describe('resolveSettings: not logged in', () => {
  const failure = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CliError);
    return err as CliError;
  };

  it('exit 3 with a hint to login when the profile has no token', async () => {
    const err = await failure(resolve({}, { ROSTER_PROFILE: 'nobody' }));
    expect(err.exitCode).toBe(3);
    expect(err.message).toContain("no profile 'nobody'");
    expect(err.message).toContain('roster login --profile nobody');
    expect(err.message).toContain('profiles: local, prod');
  });

  it('exit 3 on a fresh machine', async () => {
    const [empty, done] = tempConfigDir();
    try {
      const err = await failure(resolveSettings({}, { ROSTER_CONFIG_DIR: empty }));
      expect(err.exitCode).toBe(3);
      // No config file: no profile and file to name, only what to do.
      expect(err.message).toBe(
        'no service base URL: run `roster login`, or pass --base-url / set ROSTER_BASE_URL',
      );
      const noToken = await failure(
        resolveSettings({}, { ROSTER_CONFIG_DIR: empty, ROSTER_BASE_URL: 'http://x.test/api' }),
      );
      expect(noToken.message).toBe('no API token: run `roster login`, or set ROSTER_TOKEN');
    } finally {
      done();
    }
  });

  it('usage error for --region de without a German URL, and for a non-http URL', async () => {
    expect((await failure(resolve({ region: 'de' }))).exitCode).toBe(2);
    const bad = await failure(resolve({ baseUrl: 'ftp://x' }));
    expect(bad.exitCode).toBe(2);
    expect(bad.message).toContain('--base-url');
  });
});

describe('apiClient', () => {
  it('wires --verbose to a trace on stderr without the token, and retries as notices', async () => {
    const fake = fakeIO();
    let options: any;
    const { client } = stubClient({});
    await apiClient(
      { verbose: true },
      {
        io: fake.io,
        env: { ROSTER_BASE_URL: 'http://env.test/api', ROSTER_TOKEN: 'SECRET' },
        connect: (o) => {
          options = o;
          return client;
        },
      },
    );
    options.onTrace('→ GET http://env.test/api/users');
    options.onRetry({
      method: 'GET',
      url: 'http://env.test/api/users',
      retry: 1,
      maxRetries: 4,
      delayMs: 1500,
      reason: '429 Too Many Requests',
    });
    expect(fake.err()).toContain(
      'using http://env.test/api (ROSTER_BASE_URL), token from ROSTER_TOKEN (redacted)',
    );
    expect(fake.err()).toContain('→ GET http://env.test/api/users');
    expect(fake.err()).toContain(
      'retrying GET http://env.test/api/users in 1.5 s (429 Too Many Requests; retry 1 of 4)',
    );
    expect(fake.err()).not.toContain('SECRET');
    expect(options.token).toBe('SECRET');
  });

  it('has no trace without --verbose', async () => {
    let options: any;
    await apiClient(
      {},
      {
        io: fakeIO().io,
        env: { ROSTER_BASE_URL: 'http://env.test/api', ROSTER_TOKEN: 'T' },
        connect: (o) => {
          options = o;
          return stubClient({}).client;
        },
      },
    );
    expect(options.onTrace).toBeUndefined();
  });

  it('formats retry notices', () => {
    expect(
      retryNotice({
        method: 'PUT',
        url: 'u',
        retry: 2,
        maxRetries: 4,
        delayMs: 250,
        reason: 'ECONNRESET',
      }),
    ).toBe('retrying PUT u in 0.3 s (ECONNRESET; retry 2 of 4)');
  });
});
