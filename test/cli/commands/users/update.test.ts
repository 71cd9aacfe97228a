import { describe, expect, it } from 'vitest';
import { applySets } from '../../../../src/cli/commands/users/patch.js';
import { register, runUpdate } from '../../../../src/cli/commands/users/update.js';
import { fakeIO, parseWith, stubClient, testDeps, user } from '../../helpers.js';

describe('--set/--unset → a nested v3 patch', () => {
  it.each([
    [['profile.position=CTO'], [], { profile: { position: 'CTO' } }],
    [
      ['firstName=Ann', 'locale=de_DE'],
      [],
      { profile: { firstName: 'Ann' }, config: { locale: 'de_DE' } },
    ],
    [['note=a=b'], [], { note: 'a=b' }],
    [['email=x@y.de', 'email=z@y.de'], [], { email: 'z@y.de' }],
    [
      [],
      ['profile.phoneNumber', 'externalId'],
      { profile: { phoneNumber: null }, externalId: null },
    ],
    [
      ['profile.avatar.original.url=https://x/a.png'],
      [],
      { profile: { avatar: { original: { url: 'https://x/a.png' } } } },
    ],
  ])('%j %j', (sets, unsets, expected) => {
    expect(applySets({}, sets, unsets)).toEqual(expected);
  });

  it.each([
    [['profile=x', 'profile.firstName=y'], [], /conflicts with 'profile'/],
    [['profile.firstName=y', 'profile=x'], [], /conflicts with the fields under it/],
    [['a.=b'], [], /not a field path/],
    [['=b'], [], /key=value/],
    [['email=x'], ['email'], /also given to --set/],
  ])('rejects %j %j', (sets, unsets, message) => {
    expect(() => applySets({}, sets, unsets)).toThrow(message);
  });
});

describe('users update', () => {
  it('flags → options', async () => {
    const opts = await parseWith(
      register,
      [
        'users',
        'update',
        'E-1',
        '--set',
        'role=admin',
        '--set',
        'position=CTO',
        '--unset',
        'phoneNumber',
        '--fields',
        'id',
      ],
      'users',
    );
    expect(opts).toMatchObject({
      id: 'E-1',
      set: ['role=admin', 'position=CTO'],
      unset: ['phoneNumber'],
      fields: 'id',
    });
  });

  it('sends the patch and prints the updated user', async () => {
    const fake = fakeIO();
    const stub = stubClient({ updateUser: async () => user({ role: 'admin' }) });
    await runUpdate(
      {
        id: 'E-1',
        set: ['role=admin', 'status=deactivated'],
        unset: ['profile.position'],
        globals: {},
      },
      testDeps(fake, stub.client),
    );
    expect(stub.calls[0]!.args).toEqual([
      'E-1',
      { role: 'admin', status: 'deactivated', profile: { position: null } },
    ]);
    expect(JSON.parse(fake.out()).role).toBe('admin');
    expect(fake.err()).toContain('updated Ann Smith');
  });

  it.each([
    [{}, /nothing to change/],
    [{ set: ['role=boss'] }, /--set role 'boss': must be one of/],
    [
      { set: ['status=deleted'] },
      /--set status 'deleted': can only be set to activated or deactivated/,
    ],
    [{ set: ['createdAt=x'] }, /--set createdAt: is read-only/],
    [{ set: ['config.locale=de'] }, /--set config.locale 'de': must have the form xx_YY/],
    [{ set: ['email=bad'] }, /--set email 'bad': is not a valid email address/],
  ])('validates %j (exit 2, no request)', async (flags, message) => {
    const err = await runUpdate(
      { id: 'x', ...flags, globals: {} },
      testDeps(fakeIO(), stubClient({}).client),
    ).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(message);
  });
});
