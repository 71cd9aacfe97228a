/** `roster tenants set --scim-invitations on|off`: the flag's parsing, and the setting stored. */
import { afterEach, expect, test } from 'vitest';
import {
  register,
  runSet,
  type TenantSetOptions,
} from '../../../../../src/cli/commands/local/tenants/set.js';
import { databaseTarget, openStore } from '../../../../../src/store/open.js';
import { scratch } from '../../../../helpers/scratch.js';
import { fakeIO, parseWith, testDeps } from '../../../helpers.js';

const dirs = scratch();
afterEach(dirs.cleanup);

test.each([
  ['on', true],
  ['off', false],
  ['YES', true],
])('--scim-invitations %s parses to %s', async (value, expected) => {
  const opts = await parseWith<TenantSetOptions>(
    register,
    ['tenants', 'set', 'acme.example', '--scim-invitations', value],
    'tenants',
  );
  expect(opts).toMatchObject({ host: 'acme.example', scimInvitations: expected });
});

test('--scim-invitations maybe is a usage error', async () => {
  await expect(
    parseWith(register, ['tenants', 'set', 'x', '--scim-invitations', 'maybe'], 'tenants'),
  ).rejects.toThrow(/not on or off/);
});

test('the setting is stored on the tenant, and says so', async () => {
  const data = dirs.temp('roster-tenant-set-');
  const store = await openStore({ dataDir: data, target: databaseTarget(undefined, data) });
  await store.bootstrap();
  expect((await store.tenants.byHost('*'))?.scimInvitations).toBe(false);
  await store.close();
  const fake = fakeIO();
  await runSet({ host: '*', data, scimInvitations: true }, testDeps(fake));
  expect(fake.err()).toContain('get invitation mail');
  const again = await openStore({ dataDir: data, target: databaseTarget(undefined, data) });
  expect((await again.tenants.byHost('*'))?.scimInvitations).toBe(true);
  await again.close();
});
