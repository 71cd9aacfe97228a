import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { register as registerLogin, runLogin } from '../../../../src/cli/commands/auth/login.js';
import { runLogout } from '../../../../src/cli/commands/auth/logout.js';
import { runList } from '../../../../src/cli/commands/profiles/list.js';
import { runUse } from '../../../../src/cli/commands/profiles/use.js';
import { openConfig } from '../../../../src/cli/config.js';
import type { Deps } from '../../../../src/cli/context.js';
import { ApiError } from '../../../../src/client/errors.js';
import { fakeIO, page, parseWith, scriptedPrompter, stubClient } from '../../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(async () => {
  const { tempConfigDir } = await import('../../helpers.js');
  [dir, cleanup] = tempConfigDir();
});
afterEach(() => cleanup());

const config = () => openConfig({ ROSTER_CONFIG_DIR: dir });

/**
 * A service whose client ended on `vendor` (as the real client does after a 406 names it) and
 * that answers GET /users with `users`.
 */
function service(opts: { vendor?: string; users?: () => Promise<unknown> } = {}) {
  const connected: any[] = [];
  const deps = (fake: ReturnType<typeof fakeIO>, extra: Partial<Deps> = {}): Deps => ({
    io: fake.io,
    env: { ROSTER_CONFIG_DIR: dir },
    connect: (o) => {
      connected.push(o);
      return stubClient({
        http: {
          vendor: opts.vendor ?? 'service',
          json: async () => ({
            status: 200,
            headers: {},
            data: { vendor: opts.vendor ?? 'service' },
          }),
        } as any,
        listUsers: (opts.users ?? (async () => page([]))) as any,
      }).client;
    },
    ...extra,
  });
  return { deps, connected };
}

describe('roster login', () => {
  it('flags → options (global --base-url and --profile included)', async () => {
    const opts = await parseWith(registerLogin, [
      'login',
      '--base-url',
      'http://x/api',
      '--token',
      'T',
      '--profile',
      'p',
      '--base-url-de',
      'http://de/api',
    ]);
    expect(opts).toMatchObject({
      token: 'T',
      baseUrlDe: 'http://de/api',
      globals: { baseUrl: 'http://x/api', profile: 'p' },
    });
  });

  it('checks the token, saves the profile (0600) and makes it current', async () => {
    const fake = fakeIO();
    const svc = service();
    await runLogin(
      { token: 'TOKEN', globals: { baseUrl: 'http://acme.test/api/', profile: 'acme' } },
      svc.deps(fake),
    );
    // First the URL alone (is it the API?), then the token.
    expect(svc.connected[0]).toMatchObject({ baseUrl: 'http://acme.test/api', token: '' });
    expect(svc.connected[1]).toMatchObject({ baseUrl: 'http://acme.test/api', token: 'TOKEN' });
    expect((await config()).profile('acme')).toEqual({
      baseUrl: 'http://acme.test/api',
      token: 'TOKEN',
    });
    expect((await config()).currentProfile()).toBe('acme');
    const { statSync } = await import('node:fs');
    expect(statSync((await config()).path).mode & 0o777).toBe(0o600);
    expect(fake.err()).toContain("saved as profile 'acme' (now current)");
    expect(fake.out()).toBe('');
  });

  it("saves the service's vendor word when it is not the default", async () => {
    const svc = service({ vendor: 'acme' });
    await runLogin(
      { token: 'T', globals: { baseUrl: 'http://acme.test/api' } },
      svc.deps(fakeIO()),
    );
    expect((await config()).profile('default')).toMatchObject({ vendor: 'acme' });
    // No vendor was given: the client finds it (test/e2e/platform.test.ts does it for real).
    expect(svc.connected.at(-1).vendor).toBeUndefined();
  });

  it('--role and --locale become the profile defaults; bad ones are exit 2 before any question', async () => {
    await runLogin(
      { token: 'T', role: 'reader', locale: 'de_DE', globals: { baseUrl: 'http://a.test/api' } },
      service().deps(fakeIO()),
    );
    expect((await config()).profile('default')).toMatchObject({ role: 'reader', locale: 'de_DE' });
    // A later login without them keeps them.
    await runLogin(
      { token: 'T2', globals: { baseUrl: 'http://a.test/api' } },
      service().deps(fakeIO()),
    );
    expect((await config()).profile('default')).toMatchObject({ token: 'T2', role: 'reader' });
    const prompter = scriptedPrompter([]);
    const err = await runLogin(
      { locale: 'german', globals: { baseUrl: 'http://b.test/api', profile: 'b' } },
      service().deps(fakeIO({ tty: true }), { prompter }),
    ).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain("--locale: 'german' must have the form xx_YY");
    expect((await config()).profile('b')).toBeUndefined();
    // A vendor word goes into headers as it is.
    const vendor = await runLogin(
      { token: 'T', vendor: 'a\r\nx', globals: { baseUrl: 'http://b.test/api', profile: 'b' } },
      service().deps(fakeIO()),
    ).catch((e) => e);
    expect(vendor.exitCode).toBe(2);
    expect(vendor.message).toContain('is not a vendor word');
  });

  it('reads the token from stdin with --token -', async () => {
    await runLogin(
      { token: '-', globals: { baseUrl: 'http://a.test/api' } },
      service().deps(fakeIO({ stdin: 'FROMSTDIN\n' })),
    );
    expect((await config()).profile('default')?.token).toBe('FROMSTDIN');
  });

  it('asks for base URL and token on a terminal', async () => {
    const prompter = scriptedPrompter(['http://asked.test/api', 'ASKED']);
    await runLogin({ globals: {} }, service().deps(fakeIO({ tty: true }), { prompter }));
    expect(prompter.asked).toEqual(['Service base URL (ending in /api)', 'API token']);
    expect((await config()).profile('default')).toMatchObject({
      baseUrl: 'http://asked.test/api',
      token: 'ASKED',
    });
  });

  it('without a terminal, missing flags are usage errors', async () => {
    const missingUrl = await runLogin({ token: 'T', globals: {} }, service().deps(fakeIO())).catch(
      (e) => e,
    );
    expect(missingUrl).toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('--base-url is required'),
    });
    const missingToken = await runLogin(
      { globals: { baseUrl: 'http://a.test/api' } },
      service().deps(fakeIO()),
    ).catch((e) => e);
    expect(missingToken).toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('--token is required'),
    });
    const badUrl = await runLogin(
      { token: 'T', globals: { baseUrl: 'acme' } },
      service().deps(fakeIO()),
    ).catch((e) => e);
    expect(badUrl.exitCode).toBe(2);
  });

  it('a rejected token: exit 3, nothing saved', async () => {
    const users = async () => {
      throw new ApiError({
        status: 401,
        method: 'GET',
        url: 'u',
        envelope: {
          identifier: 40102,
          statusCode: 401,
          message: 'the API token is invalid',
          type: 'NotLoggedInException',
        },
      });
    };
    const err = await runLogin(
      { token: 'BAD', globals: { baseUrl: 'http://a.test/api' } },
      service({ users }).deps(fakeIO()),
    ).catch((e) => e);
    expect(err.exitCode).toBe(3);
    expect(err.message).toContain('nothing was saved');
    expect((await config()).profiles()).toEqual({});
  });

  it('a token without users:read (403) is saved with a note', async () => {
    const users = async () => {
      throw new ApiError({
        status: 403,
        method: 'GET',
        url: 'u',
        envelope: {
          identifier: 40308,
          statusCode: 403,
          message: 'lacks users:read',
          type: 'AccessDeniedException',
        },
      });
    };
    const fake = fakeIO();
    await runLogin(
      { token: 'MEDIA', globals: { baseUrl: 'http://a.test/api' } },
      service({ users }).deps(fake),
    );
    expect(fake.err()).toContain('may not list users');
    expect((await config()).profile('default')?.token).toBe('MEDIA');
  });
});

describe('roster profiles and logout', () => {
  beforeEach(async () => {
    const c = await config();
    c.setProfile('local', { baseUrl: 'http://local/api', token: 'SECRET1' });
    c.setProfile('prod', {
      baseUrl: 'https://prod/api',
      baseUrlDe: 'https://prod.de/api',
      token: 'SECRET2',
      vendor: 'acme',
    });
  });
  const deps = (fake = fakeIO(), env: Record<string, string> = {}): Deps => ({
    io: fake.io,
    env: { ROSTER_CONFIG_DIR: dir, ...env },
  });

  it('list shows profiles and the current one, never tokens', async () => {
    const fake = fakeIO();
    await runList({ globals: {} }, deps(fake));
    expect(JSON.parse(fake.out())).toEqual([
      {
        name: 'local',
        current: true,
        baseUrl: 'http://local/api',
        baseUrlDe: null,
        vendor: null,
        role: null,
        locale: null,
        dataDir: null,
      },
      {
        name: 'prod',
        current: false,
        baseUrl: 'https://prod/api',
        baseUrlDe: 'https://prod.de/api',
        vendor: 'acme',
        role: null,
        locale: null,
        dataDir: null,
      },
    ]);
    const table = fakeIO({ tty: true });
    await runList({ globals: {} }, deps(table));
    expect(table.out() + table.err()).not.toMatch(/SECRET/);
  });

  it('use switches the current profile; an unknown one is exit 4', async () => {
    await runUse({ name: 'prod', globals: {} }, deps());
    expect((await config()).currentProfile()).toBe('prod');
    const err = await runUse({ name: 'nope', globals: {} }, deps()).catch((e) => e);
    expect(err.exitCode).toBe(4);
    expect(err.message).toContain('profiles: local, prod');
  });

  it('logout removes the current (or named) profile; again is a no-op', async () => {
    const fake = fakeIO();
    await runLogout({ globals: {} }, deps(fake));
    expect(Object.keys((await config()).profiles())).toEqual(['prod']);
    expect(fake.err()).toContain("removed profile 'local'");
    await runLogout({ globals: { profile: 'prod' } }, deps());
    expect((await config()).profiles()).toEqual({});
    const again = fakeIO();
    await runLogout({ globals: { profile: 'prod' } }, deps(again));
    expect(again.err()).toContain('nothing to do');
  });
});
