/** `roster tokens create --for scim`: the flags, and the two values it prints. */

import { afterEach, beforeEach, expect, test } from 'vitest';
import {
  type CreateTokenOptions,
  register,
  runCreate,
} from '../../../../../src/cli/commands/local/tokens/create.js';
import { run } from '../../../../../src/cli/main.js';
import { SCOPES } from '../../../../../src/contract/scopes.js';
import { databaseTarget, openStore } from '../../../../../src/store/open.js';
import { scratch } from '../../../../helpers/scratch.js';
import { fakeIO, parseWith, testDeps } from '../../../helpers.js';

const dirs = scratch();

let data: string;
const open = () => openStore({ dataDir: data, target: databaseTarget(undefined, data) });

beforeEach(async () => {
  data = dirs.temp('roster-token-scim-');
  const store = await open();
  await store.bootstrap();
  await store.close();
});
afterEach(dirs.cleanup);

const tokens = async () => {
  const store = await open();
  try {
    return await store.tokens.list();
  } finally {
    await store.close();
  }
};

test('--for scim --url parses; --scopes has no default of its own', async () => {
  const opts = await parseWith<CreateTokenOptions>(
    register,
    ['tokens', 'create', '--for', 'scim', '--url', 'https://hr.example'],
    'tokens',
  );
  expect(opts).toMatchObject({ for: 'scim', url: 'https://hr.example', name: 'cli' });
  expect(opts.scopes).toBeUndefined();
});

test('prints the SCIM URL from --url and the token; the token has the users scopes', async () => {
  const fake = fakeIO();
  await runCreate(
    { name: 'entra', branch: 'main', tenant: '*', data, for: 'scim', url: 'https://hr.example/' },
    testDeps(fake),
  );
  const [urlLine, tokenLine] = fake.out().trim().split('\n');
  expect(urlLine).toBe('Tenant URL:   https://hr.example/scim/v2');
  expect(tokenLine).toMatch(/^Secret Token: \S+$/);
  const made = (await tokens()).find((t) => t.name === 'entra');
  expect(made?.scopes).toEqual(['users:read', 'users:write']);
});

test("the tenant's public URL when there is no --url; --json carries the url", async () => {
  const store = await open();
  await store.tenants.setPublicUrl('*', 'https://intranet.example');
  await store.close();
  const fake = fakeIO();
  await runCreate(
    { name: 'okta', branch: 'main', tenant: '*', data, for: 'scim', json: true },
    testDeps(fake),
  );
  expect(JSON.parse(fake.out())).toMatchObject({
    url: 'https://intranet.example/scim/v2',
    scopes: ['users:read', 'users:write'],
    token: expect.any(String),
  });
});

test('no public URL and no --url: a usage error naming both ways out, and no token made', async () => {
  const before = (await tokens()).length;
  await expect(
    runCreate({ name: 'x', branch: 'main', tenant: '*', data, for: 'scim' }, testDeps(fakeIO())),
    // Quoted, so that the advice pasted into a shell does not expand `*` into file names.
  ).rejects.toThrow(/--url .*`roster tenants set '\*' --public-url URL`/);
  expect((await tokens()).length).toBe(before);
});

test('--for something else and --url without --for scim are usage errors', async () => {
  const deps = testDeps(fakeIO());
  await expect(
    runCreate({ name: 'x', branch: 'main', tenant: '*', data, for: 'ldap' }, deps),
  ).rejects.toThrow(/--for scim/);
  await expect(
    runCreate({ name: 'x', branch: 'main', tenant: '*', data, url: 'https://a.example' }, deps),
  ).rejects.toThrow(/--url goes with --for scim/);
});

test("--scopes '' or ' , ' (an unset variable in a script) is exit 2 'empty list', and no token made", async () => {
  const before = (await tokens()).length;
  for (const scopes of ['', ' , ']) {
    const fake = fakeIO();
    const code = await run(
      ['node', 'roster', 'tokens', 'create', '--data', data, '--scopes', scopes],
      {
        io: fake.io,
        env: { ROSTER_CONFIG_DIR: data, HOME: data },
      },
    );
    expect(code, fake.err()).toBe(2);
    expect(fake.err()).toContain('--scopes: empty list');
    expect(fake.out()).toBe('');
  }
  expect((await tokens()).length).toBe(before);
});

test('--for says where the token works: the API by default, SCIM, or both; the store keeps it', async () => {
  const deps = testDeps(fakeIO());
  const url = 'https://hr.example';
  await runCreate({ name: 'rest', branch: 'main', tenant: '*', data }, deps);
  await runCreate({ name: 'idp', branch: 'main', tenant: '*', data, for: 'scim', url }, deps);
  await runCreate({ name: 'both', branch: 'main', tenant: '*', data, for: 'scim,api', url }, deps);
  const made = Object.fromEntries((await tokens()).map((t) => [t.name, t]));
  expect(made.rest?.channels).toEqual(['api']);
  expect(made.idp?.channels).toEqual(['scim']);
  expect(made.both?.channels).toEqual(['api', 'scim']);
  // Made for the API too, a token gets every scope unless told.
  expect(made.both?.scopes).toHaveLength(SCOPES.length);
  expect(made.rest?.scopes).toHaveLength(SCOPES.length);
});

test('--for with nothing in it, or with an unknown client among others, is a usage error', async () => {
  const deps = testDeps(fakeIO());
  for (const given of ['', ',', 'api,ldap']) {
    await expect(
      runCreate({ name: 'x', branch: 'main', tenant: '*', data, for: given }, deps),
      given,
    ).rejects.toThrow(/--for: .*use --for api, --for scim or --for api,scim/);
  }
});
