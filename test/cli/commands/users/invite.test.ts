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

describe('users invite: run', () => {
  it('creates the user and prints it (JSON when piped)', async () => {
    const fake = fakeIO();
    const stub = stubClient({ createUser: async (body) => created(body) });
    await runInvite(
      { email: 'ann@example.com', firstName: 'Ann', sendMail: true, globals: {} },
      testDeps(fake, stub.client),
    );
    expect(stub.calls[0]!.args[0]).toEqual({
      email: 'ann@example.com',
      profile: { firstName: 'Ann' },
    });
    expect(JSON.parse(fake.out()).id).toBe(user().id);
    expect(fake.err()).toContain(
      'created Ann Smith <ann@example.com> (65f000000000000000000001, pending); invitation mail sent',
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
    const stub = stubClient({ createUser: async (body) => created(body) });
    await runInvite({ sendMail: true, globals: {} }, testDeps(fake, stub.client, { prompter }));
    expect(prompter.asked).toEqual([
      'Email address',
      'First name (optional)',
      'Last name (optional)',
    ]);
    expect(stub.calls[0]!.args[0]).toEqual({
      email: 'bob@example.com',
      profile: { firstName: 'Bob' },
    });
    expect(fake.out()).toMatch(/│ field\s+│ value/);
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
    const stub = stubClient({ createUser: async (body) => created(body) });
    await runInvite(
      { email: 'a@x.de', secret: '-', sendMail: true, globals: {} },
      testDeps(fake, stub.client),
    );
    expect(stub.calls[0]!.args[0]).toMatchObject({ secret: 'from-stdin-pass' });
  });

  it('--secret alone asks for it on a terminal, and refuses elsewhere', async () => {
    const prompter = scriptedPrompter(['asked-pass-1']);
    const stub = stubClient({ createUser: async (body) => created(body) });
    await runInvite(
      { email: 'a@x.de', secret: true, sendMail: true, globals: {} },
      { ...testDeps(fakeIO({ tty: true }), stub.client), prompter },
    );
    expect(prompter.asked).toEqual(['Initial password']);
    expect(stub.calls[0]!.args[0]).toMatchObject({ secret: 'asked-pass-1' });
    const err = await runInvite(
      { email: 'a@x.de', secret: true, sendMail: true, globals: {} },
      testDeps(fakeIO(), stubClient({}).client),
    ).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('use --secret -');
  });
});
