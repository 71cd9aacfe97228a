/**
 * `roster users …` as a user runs them: the CLI's run() in-process against a real server on a
 * real port (the spawned journeys in test/e2e/cli.test.ts run users commands from the built CLI).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';

let srv: CliServed;
let ann: any;
beforeAll(async () => {
  srv = await startCliServed();
});
afterAll(async () => {
  await srv?.close();
});

const json = (text: string) => JSON.parse(text);

describe('users invite', () => {
  it('creates a user from flags and prints it (JSON when piped)', async () => {
    const r = await srv.run([
      'users',
      'invite',
      '--email',
      'ann@example.com',
      '--first-name',
      'Ann',
      '--last-name',
      'Archer',
      '--external-id',
      'E-ann',
      '--role',
      'editor',
      '--locale',
      'de_DE',
      '--no-send-mail',
      '--set',
      'profile.position=CTO',
      '--set',
      'department=IT',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    ann = json(r.stdout);
    expect(ann).toMatchObject({
      status: 'pending',
      role: 'editor',
      externalId: 'E-ann',
      email: { value: 'ann@example.com' },
      config: { locale: 'de_DE' },
      profile: { firstName: 'Ann', lastName: 'Archer', position: 'CTO', department: 'IT' },
    });
    expect(r.stderr).toContain(`created Ann Archer <ann@example.com> (${ann.id}, pending)`);
  });

  it('with --secret the user is activated at once', async () => {
    const r = await srv.run([
      'users',
      'invite',
      '--user-name',
      'bob',
      '--first-name',
      'Bob',
      '--last-name',
      'Baker',
      '--external-id',
      'E-bob',
      '--secret',
      'correct horse',
      '--no-send-mail',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ status: 'activated', userName: { value: 'bob' } });
  });

  it('bad input is caught before the request: exit 2 naming the flag', async () => {
    for (const [args, message] of [
      [['--email', 'not-an-email'], "--email 'not-an-email': is not a valid email address"],
      [['--email', 'x@example.com', '--role', 'boss'], "--role 'boss': must be one of"],
      [
        ['--email', 'x@example.com', '--locale', 'deutsch'],
        "--locale 'deutsch': must have the form xx_YY",
      ],
      [[], '--email or --user-name is required'],
    ] as const) {
      const r = await srv.run(['users', 'invite', ...args]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe('');
    }
    const list = await srv.run(['users', 'list', '--status', 'pending', '--query', 'x']);
    expect(json(list.stdout)).toEqual([]);
  });

  it('a duplicate email is the service 409: exit 1 with its message', async () => {
    const r = await srv.run(['users', 'invite', '--email', 'ann@example.com', '--no-send-mail']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/409 ConflictException/);
    expect(r.stderr).toContain('Another user of this tenant already has this email.');
  });
});

describe('users list, every format', () => {
  const all = ['--status', 'activated,pending,deactivated'];

  it('json: an array of v3 users; the default is activated and pending users', async () => {
    const r = await srv.run(['users', 'list']);
    expect(r.exitCode).toBe(0);
    expect(json(r.stdout).map((u: any) => u.externalId)).toEqual(['E-ann', 'E-bob']);
    const active = await srv.run(['users', 'list', '--status', 'activated']);
    expect(json(active.stdout).map((u: any) => u.externalId)).toEqual(['E-bob']);
    const every = json((await srv.run(['users', 'list', ...all])).stdout);
    expect(every.map((u: any) => u.externalId)).toEqual(['E-ann', 'E-bob']);
    expect(every[0]).toEqual(ann);
  });

  it('ndjson, csv and table', async () => {
    const nd = await srv.run(['-o', 'ndjson', 'users', 'list', ...all]);
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => json(l).externalId),
    ).toEqual(['E-ann', 'E-bob']);
    const csv = await srv.run(['users', 'list', ...all, '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe(
      'id,externalId,email,userName,firstName,lastName,role,status',
    );
    expect(csv.stdout).toContain(`${ann.id},E-ann,ann@example.com,,Ann,Archer,editor,pending`);
    const table = await srv.run(['users', 'list', ...all, '-o', 'table']);
    expect(table.stdout).toMatch(/│ id\s+│ externalId\s+│ email/);
    expect(table.stdout).toMatch(/│ E-bob\s+│/);
  });

  it('--fields, --query, --sort, --limit/--offset and --all', async () => {
    const fields = await srv.run([
      'users',
      'list',
      ...all,
      '--fields',
      'externalId,profile.lastName',
      '-o',
      'csv',
    ]);
    expect(fields.stdout).toBe('externalId,profile.lastName\nE-ann,Archer\nE-bob,Baker\n');
    const query = await srv.run([
      'users',
      'list',
      ...all,
      '--query',
      'bak',
      '--fields',
      'externalId',
    ]);
    expect(json(query.stdout)).toEqual([{ externalId: 'E-bob' }]);
    const sorted = await srv.run([
      'users',
      'list',
      ...all,
      '--sort',
      'externalId_DESC_email_ASC',
      '--fields',
      'externalId',
    ]);
    expect(json(sorted.stdout)).toEqual([{ externalId: 'E-bob' }, { externalId: 'E-ann' }]);
    const second = await srv.run([
      'users',
      'list',
      ...all,
      '--limit',
      '1',
      '--offset',
      '1',
      '--fields',
      'externalId',
    ]);
    expect(json(second.stdout)).toEqual([{ externalId: 'E-bob' }]);
    const paged = await srv.run([
      'users',
      'list',
      ...all,
      '--all',
      '--limit',
      '1',
      '--fields',
      'externalId',
      '--verbose',
    ]);
    expect(json(paged.stdout)).toEqual([{ externalId: 'E-ann' }, { externalId: 'E-bob' }]);
    const asked = paged.stderr.match(/→ GET .*\/users\?.*/g)!;
    expect(asked).toHaveLength(2);
    // The second page by the first's cursor, not by offset (exact while users change).
    expect(asked[1]).toMatch(/[?&]after=/);
    expect(asked[1]).not.toMatch(/[?&]offset=/);
  });

  it('bad flags are usage errors (exit 2)', async () => {
    for (const args of [
      ['--status', 'gone'],
      ['--sort', 'age'],
      ['--limit', '0'],
      ['--fields', 'nope'],
      ['--bogus'],
    ]) {
      const r = await srv.run(['users', 'list', ...args]);
      expect(r.exitCode, args.join(' ')).toBe(2);
    }
  });
});

describe('users show and update', () => {
  it('show by id or externalId; a table on request; 404 → exit 4', async () => {
    expect(json((await srv.run(['users', 'show', ann.id])).stdout)).toEqual(ann);
    expect(json((await srv.run(['users', 'show', 'E-ann'])).stdout).id).toBe(ann.id);
    const table = await srv.run(['users', 'show', 'E-ann', '-o', 'table']);
    expect(table.stdout).toMatch(/│ profile\.position\s+│ CTO\s+│/);
    const missing = await srv.run(['users', 'show', 'nobody']);
    expect(missing.exitCode).toBe(4);
    expect(missing.stderr).toMatch(/404 NotFoundException/);
  });

  it('update --set/--unset changes fields; bad values exit 2; unknown user exit 4', async () => {
    const r = await srv.run([
      'users',
      'update',
      'E-ann',
      '--set',
      'position=CEO',
      '--set',
      'role=admin',
      '--unset',
      'department',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({
      role: 'admin',
      profile: { position: 'CEO', department: null },
    });
    const bad = await srv.run(['users', 'update', 'E-ann', '--set', 'config.locale=de']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--set config.locale 'de': must have the form xx_YY");
    expect((await srv.run(['users', 'update', 'nobody', '--set', 'position=x'])).exitCode).toBe(4);
  });
});

describe('activate, deactivate, remove over several ids', () => {
  it('deactivate two: exit 0 and a result per id', async () => {
    const r = await srv.run(['users', 'deactivate', 'E-ann', 'E-bob']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r.stdout)).toEqual([
      { id: 'E-ann', ok: true, status: 'deactivated', error: null },
      { id: 'E-bob', ok: true, status: 'deactivated', error: null },
    ]);
  });

  it('activate with one unknown id: exit 5; all unknown: exit 4', async () => {
    const some = await srv.run(['users', 'activate', 'E-ann', 'nobody', '-o', 'ndjson']);
    expect(some.exitCode).toBe(5);
    const rows = some.stdout.trim().split('\n').map(json);
    expect(rows.map((r: any) => [r.id, r.ok])).toEqual([
      ['E-ann', true],
      ['nobody', false],
    ]);
    expect(some.stderr).toContain('failed nobody:');
    expect(some.stderr).toContain('1 of 2 failed');
    const none = await srv.run(['users', 'activate', 'nobody', 'nobody-else']);
    expect(none.exitCode).toBe(4);
  });

  it('remove refuses without a terminal and without --yes: exit 2, nothing removed', async () => {
    const r = await srv.run(['users', 'remove', 'E-bob']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('pass --yes');
    expect((await srv.run(['users', 'show', 'E-bob'])).exitCode).toBe(0);
  });

  it('remove -y removes; the user answers 404 from then on', async () => {
    const r = await srv.run(['users', 'remove', 'E-bob', '-y', '-o', 'csv']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('id,result,status,error\nE-bob,removed,deleted,\n');
    expect((await srv.run(['users', 'show', 'E-bob'])).exitCode).toBe(4);
  });
});

describe('auth', () => {
  it('a token without users:read: 403 → exit 3 with the reason', async () => {
    const { token } = await srv.newToken('media:read');
    const r = await srv.run(['users', 'list'], { env: { ROSTER_TOKEN: token } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/403 AccessDeniedException/);
    expect(r.stderr).toContain('users:read');
  });
});
