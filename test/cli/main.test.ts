import { describe, expect, it } from 'vitest';
import { commandsFor } from '../../src/cli/commands/index.js';
import { CliError, EXIT } from '../../src/cli/errors.js';
import { buildProgram, reportError, run } from '../../src/cli/main.js';
import { ApiError, NetworkError, ResponseFormatError } from '../../src/client/errors.js';
import { fakeIO, testDeps } from './helpers.js';

const apiError = (status: number) =>
  new ApiError({
    status,
    method: 'GET',
    url: 'http://api.test/api/users/x',
    envelope: { identifier: status * 100, statusCode: status, message: `m${status}`, type: 'T' },
  });

describe('reportError: the one place errors become exit codes', () => {
  it.each([
    [apiError(401), EXIT.auth, /roster login/],
    [apiError(403), EXIT.auth, /m403[\s\S]*roster login --token/],
    [apiError(404), EXIT.notFound, /m404/],
    [apiError(409), EXIT.error, /m409/],
    [apiError(500), EXIT.error, /try again later/],
    [
      new NetworkError({
        method: 'GET',
        url: 'http://127.0.0.1:9/api/users',
        code: 'ECONNREFUSED',
        cause: new Error('x'),
        attempts: 5,
        timeoutMs: 1,
      }),
      EXIT.error,
      /127\.0\.0\.1:9/,
    ],
    [
      new ResponseFormatError({
        status: 200,
        method: 'GET',
        url: 'http://x.test/users',
        contentType: 'text/html',
      }),
      EXIT.error,
      /base URL/,
    ],
    [new CliError('bad flag', EXIT.usage), EXIT.usage, /^error: bad flag/],
    [new CliError('partial', EXIT.partial), EXIT.partial, /partial/],
    [
      Object.assign(new Error('User force closed the prompt'), { name: 'ExitPromptError' }),
      EXIT.interrupted,
      /interrupted/,
    ],
    [new Error('boom'), EXIT.error, /boom\n\(run with --verbose for details\)/],
  ])('%s → %i', async (err, code, message) => {
    const fake = fakeIO();
    expect(await reportError(err, testDeps(fake), false)).toBe(code);
    expect(fake.err()).toMatch(message);
  });

  it('prints the stack of an unexpected error with --verbose', async () => {
    const fake = fakeIO();
    await reportError(new Error('boom'), testDeps(fake), true);
    expect(fake.err()).toContain('at ');
  });
});

describe('run: commander errors', () => {
  const runArgs = async (...args: string[]) => {
    const fake = fakeIO();
    const code = await run(['node', 'roster', ...args], testDeps(fake));
    return { code, out: fake.out(), err: fake.err() };
  };

  it('usage errors exit 2 with a hint', async () => {
    const unknown = await runArgs('users', 'list', '--bogus');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("unknown option '--bogus'");
    expect(unknown.err).toContain('--help');
    const typo = await runArgs('userz');
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('Did you mean users?');
    expect((await runArgs('users')).code).toBe(2);
    expect((await runArgs('users', 'list', '--limit', '0')).code).toBe(2);
    expect((await runArgs('-o', 'toml', 'users', 'list')).code).toBe(2);
    expect((await runArgs('--region', 'us', 'users', 'list')).code).toBe(2);
  });

  it('--version and --help exit 0', async () => {
    const v = await runArgs('--version');
    expect(v).toMatchObject({ code: 0, out: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
    const help = await runArgs('users', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('invite');
  });

  it.each([['users', 'list'], ['users', 'import'], ['media', 'upload'], ['check'], ['serve']])(
    '%s %s --help shows the global options that apply, and examples',
    async (...words) => {
      const help = await runArgs(...words.filter(Boolean), '--help');
      expect(help.code).toBe(0);
      expect(help.out).toContain('Global Options:');
      expect(help.out).toContain('--timeout <seconds>');
      expect(help.out).toMatch(new RegExp(`Examples:\\n {2}roster ${words.join(' ')}`));
    },
  );
});

describe('commandsFor: load only the module of the command being run', () => {
  it.each([
    [['--version'], []],
    [['-V'], []],
    [['users', 'list'], ['users']],
    [['-o', 'json', '--profile', 'p', 'users', 'list'], ['users']],
    [['--base-url', 'users', 'check'], ['check']],
    [['serve', '--port', '0'], ['serve']],
  ])('%j → %j', (args, expected) => {
    expect(commandsFor(args)).toEqual(expected);
  });

  it('loads all for help, completion, an unknown command or none', async () => {
    const all = (await buildProgram(testDeps(fakeIO()))).commands.map((c) => c.name());
    for (const args of [
      [],
      ['--help'],
      ['help', 'users'],
      ['completion', 'bash'],
      ['nope'],
      ['toString'],
    ]) {
      expect(commandsFor(args)).toEqual(all);
    }
  });
});

describe('colour', () => {
  it('only when allowed: --no-color turns it off for stdout and stderr', async () => {
    const { tempConfigDir } = await import('./helpers.js');
    const [dir, done] = tempConfigDir();
    try {
      const table = async (...flags: string[]) => {
        const fake = fakeIO({ tty: true });
        fake.io.color = true;
        fake.io.stderrColor = true;
        const code = await run(['node', 'roster', ...flags, 'profiles', 'list'], {
          io: fake.io,
          env: { ROSTER_CONFIG_DIR: dir },
        });
        expect(code).toBe(0);
        return fake.out();
      };
      expect(await table()).toContain('\u001b[');
      expect(await table('--no-color')).not.toContain('\u001b[');
    } finally {
      done();
    }
  });
});
