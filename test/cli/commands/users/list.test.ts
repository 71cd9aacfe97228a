import { describe, expect, it } from 'vitest';
import { register, runList } from '../../../../src/cli/commands/users/list.js';
import { fakeIO, page, parseWith, stubClient, testDeps, user } from '../../helpers.js';

describe('users list: flags → options', () => {
  it.each([
    [['users', 'list'], {}],
    [
      [
        'users',
        'list',
        '--status',
        'pending,deactivated',
        '--query',
        'ann',
        '--sort',
        'email_ASC_lastName_DESC',
        '--limit',
        '5',
        '--offset',
        '10',
      ],
      {
        status: ['pending', 'deactivated'],
        query: 'ann',
        sort: 'email_ASC_lastName_DESC',
        limit: 5,
        offset: 10,
      },
    ],
    [['-o', 'csv', 'users', 'list', '--all', '--fields', 'id'], { all: true, fields: 'id' }],
    [['users', 'list', '--status', 'all'], { status: ['activated', 'pending', 'deactivated'] }],
    [['users', 'list', '--sort', 'lastName_DESC'], { sort: 'lastName_DESC_firstName_ASC' }],
    [['users', 'list', '--sort', 'createdAt_desc'], { sort: 'createdAt_DESC_lastName_ASC' }],
  ])('%j', async (argv, expected) => {
    const opts = await parseWith(register, argv, 'users');
    expect(opts).toMatchObject(expected);
  });

  it('global flags reach the options, before or after the verb', async () => {
    const opts = await parseWith(
      register,
      ['users', 'list', '-o', 'ndjson', '--profile', 'p'],
      'users',
    );
    expect(opts.globals).toMatchObject({ output: 'ndjson', profile: 'p' });
  });

  it.each([
    [['--status', 'gone'], /--status.*activated, pending, deactivated \(comma-separated\) or all/],
    [['--sort', 'name'], /--sort.*KEY one of firstName, lastName/],
    [['--sort', 'age_ASC'], /KEY one of .*got 'age_ASC'/],
  ])('rejects %j at parse time, naming what is allowed', async (flags, message) => {
    await expect(parseWith(register, ['users', 'list', ...flags], 'users')).rejects.toThrow(
      message,
    );
  });

  it('rejects a bad --limit / --offset at parse time', async () => {
    await expect(parseWith(register, ['users', 'list', '--limit', 'x'], 'users')).rejects.toThrow(
      /at least 1/,
    );
    await expect(
      parseWith(register, ['users', 'list', '--offset', '-1'], 'users'),
    ).rejects.toThrow();
  });
});

describe('users list: run', () => {
  it('prints one page as a JSON array of v3 users when piped', async () => {
    const fake = fakeIO();
    const stub = stubClient({ listUsers: async () => page([user()], 1) });
    await runList({ globals: {} }, testDeps(fake, stub.client));
    expect(JSON.parse(fake.out())).toEqual([user()]);
    stub.assertAllUsed();
  });

  it('passes filters and paging to the client', async () => {
    const stub = stubClient({ listUsers: async () => page([]) });
    await runList(
      {
        status: ['pending'],
        query: 'an',
        sort: 'email_ASC_status_DESC',
        limit: 3,
        offset: 6,
        globals: {},
      },
      testDeps(fakeIO(), stub.client),
    );
    expect(stub.calls[0]!.args[0]).toEqual({
      status: ['pending'],
      query: 'an',
      sort: 'email_ASC_status_DESC',
      limit: 3,
      offset: 6,
    });
  });

  it('on a TTY: a table, and a hint when there are more pages', async () => {
    const fake = fakeIO({ tty: true });
    const stub = stubClient({ listUsers: async () => page([user()], 250) });
    await runList({ globals: {} }, testDeps(fake, stub.client));
    expect(fake.out()).toMatch(/│ id\s+│ externalId\s+│ email/);
    expect(fake.out()).toContain('ann@example.com');
    expect(fake.err()).toContain('showing 1–1 of 250; --all for every page, or --offset 1');
  });

  it('piped as ids: the ids of the page on stdout, and the same hint on stderr', async () => {
    const fake = fakeIO();
    const stub = stubClient({ listUsers: async () => page([user()], 250) });
    await runList({ globals: { output: 'ids' } }, testDeps(fake, stub.client));
    expect(fake.out()).toBe(`${user().id}\n`);
    expect(fake.err()).toContain('showing 1–1 of 250; --all for every page, or --offset 1');
  });

  it('on a TTY, a total the service did not count to the end reads as a lower bound', async () => {
    const fake = fakeIO({ tty: true });
    const stub = stubClient({
      listUsers: async () => ({ ...page([user()], 10_000), totalExact: false as const }),
    });
    await runList({ globals: {} }, testDeps(fake, stub.client));
    expect(fake.err()).toContain('showing 1–1 of more than 10000; --all for every page');
  });

  it('on a TTY, an empty list says which status was listed', async () => {
    const fake = fakeIO({ tty: true });
    await runList(
      { globals: {} },
      testDeps(fake, stubClient({ listUsers: async () => page([]) }).client),
    );
    expect(fake.err()).toContain('no users with status activated or pending');
  });

  it('--all follows every page from --offset, with --limit as page size', async () => {
    const fake = fakeIO();
    const users = [1, 2, 3, 4, 5].map((n) => user({ id: `id${n}` }));
    const stub = stubClient({
      listUsers: async (p) =>
        page(users.slice(p!.offset!, p!.offset! + p!.limit!), users.length, p!.offset, p!.limit),
    });
    await runList(
      { all: true, limit: 2, offset: 1, globals: { output: 'ndjson' } },
      testDeps(fake, stub.client),
    );
    expect(
      fake
        .out()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['id2', 'id3', 'id4', 'id5']);
    expect(stub.calls.map((c) => (c.args[0] as any).offset)).toEqual([1, 3]);
  });

  it('--fields picks columns (csv) and nested keys (json)', async () => {
    const csv = fakeIO();
    const stub = () => stubClient({ listUsers: async () => page([user()]) }).client;
    await runList(
      { fields: 'id,email.value,profile.position', globals: { output: 'csv' } },
      testDeps(csv, stub()),
    );
    expect(csv.out()).toBe(
      'id,email.value,profile.position\n65f000000000000000000001,ann@example.com,CTO\n',
    );
    const json = fakeIO();
    await runList({ fields: 'email.value', globals: {} }, testDeps(json, stub()));
    expect(JSON.parse(json.out())).toEqual([{ email: { value: 'ann@example.com' } }]);
  });

  it('lists activated and pending users unless told otherwise (CONTRACT)', async () => {
    const stub = stubClient({ listUsers: async () => page([]) });
    await runList({ globals: {} }, testDeps(fakeIO(), stub.client));
    expect(stub.calls[0]!.args[0]).toMatchObject({ status: ['activated', 'pending'] });
  });

  it.each([
    [{ sort: 'name' }, /--sort: must look like lastName_ASC_firstName_ASC/],
    [{ fields: 'nope' }, /--fields: unknown field 'nope'/],
  ])('checks %j before any request (exit 2)', async (opts, message) => {
    const stub = stubClient({});
    const err = await runList({ ...opts, globals: {} }, testDeps(fakeIO(), stub.client)).catch(
      (e) => e,
    );
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(message);
  });
});
