import { describe, expect, it } from 'vitest';
import { inviteBody, register, runInvite } from '../../../../src/cli/commands/users/invite.js';
import { fakeIO, parseWith, scriptedPrompter, stubClient, testDeps, user } from '../../helpers.js';

const created = (body: any) => ({
  user: user({ status: body.secret ? 'activated' : 'pending' }),
  location: 'x',
});

describe('users invite: flags → options → body', () => {
  it('maps every flag into the v3 create body', async () => {
    const opts = await parseWith(
      register,
      [
        'users',
        'invite',
        '--email',
        'a@x.de',
        '--user-name',
        'ann',
        '--external-id',
        'E1',
        '--first-name',
        'Ann',
        '--last-name',
        'S',
        '--role',
        'admin',
        '--locale',
        'de_DE',
        '--secret',
        'longsecret',
        '--no-send-mail',
        '--set',
        'profile.position=CTO',
        '--set',
        'department=IT',
      ],
      'users',
    );
    expect(inviteBody(opts)).toEqual({
      email: 'a@x.de',
      userName: 'ann',
      externalId: 'E1',
      role: 'admin',
      secret: 'longsecret',
      config: { locale: 'de_DE' },
      profile: { firstName: 'Ann', lastName: 'S', position: 'CTO', department: 'IT' },
      sendMail: false,
    });
  });

  it('sends mail by default (sendMail is left to the service)', async () => {
    const opts = await parseWith(register, ['users', 'invite', '--email', 'a@x.de'], 'users');
    expect(opts.sendMail).toBe(true);
    expect(inviteBody(opts)).toEqual({ email: 'a@x.de' });
  });
});

/** The body createUser was called with. */
const sent = (stub: ReturnType<typeof stubClient>) =>
  stub.calls.find((c) => c.method === 'createUser')?.args[0];

/** A client of a service that requires `requires` in new users (Roster: nothing). */
const onService = (
  stubs: Parameters<typeof stubClient>[0],
  requires: string[] = [],
  userDefaults = {},
) => stubClient({ createRequires: async () => requires, userDefaults, ...stubs });

describe('users invite: run', () => {
  it('creates the user and prints it (JSON when piped)', async () => {
    const fake = fakeIO();
    const stub = onService({ createUser: async (body) => created(body) });
    await runInvite(
      { email: 'ann@example.com', firstName: 'Ann', sendMail: true, globals: {} },
      testDeps(fake, stub.client),
    );
    expect(sent(stub)).toEqual({
      email: 'ann@example.com',
      profile: { firstName: 'Ann' },
    });
    expect(JSON.parse(fake.out()).id).toBe(user().id);
    expect(fake.err()).toContain(
      'created Ann Smith <ann@example.com> (65f000000000000000000001, pending); invitation queued',
    );
    stub.assertAllUsed();
  });

  it.each([
    [{ email: 'nope@' }, "--email 'nope@': is not a valid email address"],
    [
      { email: 'a@x.de', role: 'boss' },
      "--role 'boss': must be one of admin, editor, moderator, reader, restricted",
    ],
    [{ email: 'a@x.de', locale: 'german' }, "--locale 'german': must have the form xx_YY"],
    [{ email: 'a@x.de', secret: 'short' }, '--secret: must be at least 8 characters'],
    [
      { email: 'a@x.de', set: ['profile.firstname=x'] },
      '--set profile.firstname: is not a known field',
    ],
    [{ email: 'a@x.de', set: ['id=1'] }, '--set id: is read-only'],
    [{ email: 'a@x.de', set: ['novalue'] }, '--set expects key=value'],
    [{}, '--email or --user-name is required'],
  ])('validates %j before sending (exit 2)', async (flags, message) => {
    const stub = stubClient({});
    const err = await runInvite(
      { sendMail: true, ...flags, globals: {} },
      testDeps(fakeIO(), stub.client),
    ).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(message);
  });

  it('never echoes the secret in a message', async () => {
    const err = await runInvite(
      { email: 'a@x.de', secret: 'abc', sendMail: true, globals: {} },
      testDeps(fakeIO(), stubClient({}).client),
    ).catch((e) => e);
    expect(err.message).not.toContain('abc');
  });

  it('on a TTY asks for the missing email and names', async () => {
    const fake = fakeIO({ tty: true });
    const prompter = scriptedPrompter(['bob@example.com', 'Bob', '']);
    const stub = onService({ createUser: async (body) => created(body) });
    await runInvite({ sendMail: true, globals: {} }, testDeps(fake, stub.client, { prompter }));
    expect(prompter.asked).toEqual([
      'Email address',
      'First name (optional)',
      'Last name (optional)',
    ]);
    expect(sent(stub)).toEqual({
      email: 'bob@example.com',
      profile: { firstName: 'Bob' },
    });
    expect(fake.out()).toMatch(/│ field\s+│ value/);
  });

  it('where the service requires role and locale (the platform): asks on a TTY', async () => {
    const prompter = scriptedPrompter(['editor', 'de_DE']);
    const stub = onService({ createUser: async (body) => created(body) }, [
      'role',
      'config.locale',
    ]);
    await runInvite(
      { email: 'a@x.de', sendMail: true, globals: {} },
      testDeps(fakeIO({ tty: true }), stub.client, { prompter }),
    );
    expect(prompter.asked).toEqual([
      'Role of new users (the service requires one)',
      'Locale of new users, xx_YY (the service requires one)',
    ]);
    // The client fills them in from its defaults, for this and every later user.
    expect(stub.client.userDefaults).toEqual({ role: 'editor', locale: 'de_DE' });
    stub.assertAllUsed();
  });

  it('…refuses when not on a terminal (exit 2, nothing sent); flags or profile defaults need no question', async () => {
    const requires = ['role', 'config.locale'];
    const err = await runInvite(
      { email: 'a@x.de', sendMail: true, globals: {} },
      testDeps(fakeIO(), onService({}, requires).client),
    ).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      "the service requires a role and a locale for new users: pass --role and --locale, or set the profile's defaults with `roster profiles set --role reader --locale de_DE`",
    );
    const locale = await runInvite(
      { email: 'a@x.de', role: 'reader', sendMail: true, globals: {} },
      testDeps(fakeIO(), onService({}, requires).client),
    ).catch((e) => e);
    expect(locale.message).toContain('requires a locale for new users: pass --locale,');
    const flags = onService({ createUser: async (body) => created(body) }, requires);
    await runInvite(
      { email: 'a@x.de', role: 'reader', locale: 'de_DE', sendMail: true, globals: {} },
      testDeps(fakeIO(), flags.client),
    );
    flags.assertAllUsed();
    const defaults = onService({ createUser: async (body) => created(body) }, requires, {
      role: 'reader',
      locale: 'de_DE',
    });
    await runInvite(
      { email: 'a@x.de', sendMail: true, globals: {} },
      testDeps(fakeIO(), defaults.client),
    );
    defaults.assertAllUsed();
  });

  it('does not prompt when not on a terminal', async () => {
    const prompter = scriptedPrompter([]);
    const err = await runInvite(
      { sendMail: true, globals: {} },
      testDeps(fakeIO(), stubClient({}).client, { prompter }),
    ).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(prompter.asked).toEqual([]);
  });
});

describe('users invite: the secret stays out of argv', () => {
  it('--secret - reads it from stdin', async () => {
    const fake = fakeIO({ stdin: 'from-stdin-pass\n' });
    const stub = onService({ createUser: async (body) => created(body) });
    await runInvite(
      { email: 'a@x.de', secret: '-', sendMail: true, globals: {} },
      testDeps(fake, stub.client),
    );
    expect(sent(stub)).toMatchObject({ secret: 'from-stdin-pass' });
  });

  it('--secret alone asks for it on a terminal, and refuses elsewhere', async () => {
    const prompter = scriptedPrompter(['asked-pass-1']);
    const stub = onService({ createUser: async (body) => created(body) });
    await runInvite(
      { email: 'a@x.de', secret: true, sendMail: true, globals: {} },
      { ...testDeps(fakeIO({ tty: true }), stub.client), prompter },
    );
    expect(prompter.asked).toEqual(['Initial password']);
    expect(sent(stub)).toMatchObject({ secret: 'asked-pass-1' });
    const err = await runInvite(
      { email: 'a@x.de', secret: true, sendMail: true, globals: {} },
      testDeps(fakeIO(), stubClient({}).client),
    ).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('use --secret -');
  });
});
