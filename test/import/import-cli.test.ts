/**
 * `roster users import` / `users export` as a user runs them: the CLI's run() in-process against
 * a real server on a real port (test/e2e/import.test.ts is the spawned journey). Each test works
 * in its own branch, with its own keys.
 */
import { lstatSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cliAgainst } from '../helpers/cli-run.js';
import { fifoReader } from '../helpers/fifo.js';
import { scratch } from '../helpers/scratch.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { EXPORT_COLUMNS, TEMPLATE_HEADER } from '../helpers/user-fields.js';
import { people, tempCsv } from './helpers.js';

const dirs = scratch();

let server: TestServer;
const dir = dirs.temp('roster-import-cli-');
let branches = 0;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
  await dirs.cleanup();
});

const file = (name: string, content: string) => tempCsv(content, name);

/** The CLI with a token of a fresh branch. */
async function inBranch() {
  const cli = cliAgainst(
    server,
    await server.token({ branch: `import-${++branches}` }),
    mkdtempSync(join(dir, 'config-')),
  );
  const run = (args: string[], stdin?: string) => cli(args, { stdin });
  const json = async (args: string[]) => JSON.parse((await run([...args, '-o', 'json'])).stdout);
  const users = async () =>
    (await json(['users', 'list', '--all', '--status', 'activated,pending,deactivated'])) as {
      externalId: string;
      status: string;
      profile: Record<string, string>;
    }[];
  return { run, json, users };
}

describe('users import', () => {
  test('--resume of a report that is not there, or with an input that is not: one line each', async () => {
    const { run } = await inBranch();
    const missing = join(dir, 'no-such-report.csv');
    const gone = await run(['users', 'import', '--resume', missing]);
    expect([gone.code, gone.stderr]).toEqual([
      1,
      `error: --resume ${missing}: no such file (the --report of the run to continue)\n`,
    ]);
    const report = file('old-report.csv', 'row,line,key,action,id,status,error\n');
    const input = join(dir, 'no-such-input.csv');
    const noInput = await run(['users', 'import', input, '--resume', report]);
    expect(noInput.code).toBe(1);
    expect(noInput.stderr.trim().split('\n').at(-1)).toBe(`error: ${input}: no such file`);
  });

  test('dry run, import, idempotent re-run, updates', async () => {
    const { run, json, users } = await inBranch();
    const csv = file('dry.csv', people('D', 5));
    const dry = await run(['users', 'import', csv, '--dry-run', '-o', 'table']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Plan for');
    expect(dry.stdout).toMatch(/│ create\s+│ update\s+│ unchanged/);
    expect(dry.stdout).toMatch(/│ 2\s+│ create │ D-0\s+│ email=d0@example.com, firstName=First0/);
    expect(dry.stderr).toContain(
      '5 invitations would be queued by the service (one per new user with an email',
    );
    const quiet = await run(['users', 'import', csv, '--dry-run', '--no-send-mail']);
    expect(quiet.stderr).toContain('no invitations would be queued (--no-send-mail; 5 new users');
    expect((await json(['users', 'import', csv, '--dry-run'])).summary).toEqual({
      created: 5,
      updated: 0,
      unchanged: 0,
      deactivated: 0,
      failed: 0,
      rows: 5,
      invitations: 5,
    });
    expect(await users()).toEqual([]);

    expect(await json(['users', 'import', csv, '--no-send-mail'])).toMatchObject({
      created: 5,
      failed: 0,
    });
    expect(await users()).toHaveLength(5);
    expect(await json(['users', 'import', csv])).toEqual({
      created: 0,
      updated: 0,
      unchanged: 5,
      deactivated: 0,
      failed: 0,
      rows: 5,
      invitations: 0,
    });

    const moved = file(
      'moved.csv',
      people('D', 6).replace(
        'D-1,d1@example.com,First1,Last1,Sales',
        'D-1,d1@example.com,First1,Last1,Marketing',
      ),
    );
    const plan = (await run(['users', 'import', moved, '--dry-run', '-o', 'table'])).stdout;
    expect(plan).toMatch(/update │ D-1\s+│ department: Sales → Marketing/);
    expect(await json(['users', 'import', moved])).toMatchObject({
      created: 1,
      updated: 1,
      unchanged: 4,
    });
    expect((await users()).find((u) => u.externalId === 'D-1')!.profile.department).toBe(
      'Marketing',
    );
  });

  test('--template prints every known column', async () => {
    const { run } = await inBranch();
    expect((await run(['users', 'import', '--template'])).stdout).toBe(`${TEMPLATE_HEADER}\n`);
  });

  test('--sync brings back users who never signed up as pending, not activated', async () => {
    const { run, users } = await inBranch();
    const full = file('states-full.csv', people('ST', 20));
    const short = file('states-short.csv', people('ST', 18));
    expect((await run(['users', 'import', full, '--no-send-mail'])).code).toBe(0);
    const cut = await run([
      'users',
      'import',
      short,
      '--sync',
      '--max-deactivate',
      '20%',
      '-o',
      'json',
    ]);
    expect(JSON.parse(cut.stdout)).toMatchObject({ deactivated: 2 });
    // The plan says where they go back to: pending, as the run then finds them.
    const plan = await run(['users', 'import', full, '--sync', '--dry-run', '-o', 'json']);
    const back1 = JSON.parse(plan.stdout).rows.find((r: { key: string }) => r.key === 'ST-19');
    expect(back1, plan.stderr).toMatchObject({
      action: 'update',
      changes: { status: { from: 'deactivated', to: 'pending' } },
    });
    const back = await run(['users', 'import', full, '--sync', '-o', 'json']);
    expect(back.code, back.stderr).toBe(0);
    const statuses = new Set((await users()).map((u) => u.status));
    expect(statuses).toEqual(new Set(['pending']));
  });

  test('- reads the CSV from stdin, and leaves no temp file', async () => {
    const { run } = await inBranch();
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith('roster-stdin-'));
    const r = await run(
      ['users', 'import', '-', '--no-send-mail', '-o', 'json'],
      people('STDIN', 3),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 3, rows: 3 });
    const after = readdirSync(tmpdir()).filter((f) => f.startsWith('roster-stdin-'));
    expect(after).toEqual(before);
  });

  test('partial failure: exit 5, failed rows with lines on stderr, a report of every row', async () => {
    const { run, users } = await inBranch();
    const csv = file(
      'partial.csv',
      'externalId,email,firstName\nP-1,p1@example.com,Ann\nP-2,not-an-email,Bob\nP-3,p3@example.com,Cem\nP-4,p1@example.com,Dup\n',
    );
    const report = join(dir, 'partial-report.csv');
    const r = await run(['users', 'import', csv, '--report', report, '-o', 'json']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toEqual({
      created: 1,
      updated: 0,
      unchanged: 0,
      deactivated: 0,
      failed: 3,
      rows: 4,
      invitations: 1,
    });
    expect(r.stderr).toContain("line 3 (P-2): email 'not-an-email' is not a valid email address");
    expect(r.stderr).toContain(
      "line 2 (P-1): email 'p1@example.com' appears on several lines (2, 5)",
    );
    expect(r.stderr).toMatch(
      /error: 3 of 4 rows failed; every row's outcome is in .*partial-report\.csv/,
    );
    expect((await users()).map((u) => u.externalId)).toEqual(['P-3']);
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('row,line,key,action,id,status,error,invitation');
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',').slice(0, 4).join(','))
        .sort(),
    ).toEqual(['1,2,P-1,error', '2,3,P-2,error', '3,4,P-3,create', '4,5,P-4,error']);
  });

  test('bad input: each reported with its file, line or column, nothing sent', async () => {
    const { run, users } = await inBranch();
    const cases: [string[], number, RegExp][] = [
      [['users', 'import', join(dir, 'nope.csv')], 1, /nope\.csv: no such file/],
      [['users', 'import', dir], 1, /is a directory, not a CSV file/],
      [['users', 'import', file('empty.csv', '')], 1, /empty\.csv is empty: expected a header row/],
      [
        [
          'users',
          'import',
          file('unknown.csv', 'externalId,email,Shoe Size\nU-1,u@example.com,42\n'),
        ],
        2,
        /unknown column 'Shoe Size'.*--ignore-unknown/,
      ],
      [
        ['users', 'import', file('dupcol.csv', 'externalId,Email,E-Mail\n')],
        2,
        /several columns map to the same field: email/,
      ],
      [
        ['users', 'import', file('quote.csv', 'externalId,email\nQ-1,"q@example.com\n')],
        1,
        /quote\.csv line 2, column 2 \(email\): a quoted field is never closed/,
      ],
      [
        [
          'users',
          'import',
          file(
            'latin1.csv',
            Buffer.from(
              'externalId,email,firstName\nL-1,l@example.com,Jos\xe9\n',
              'latin1',
            ) as unknown as string,
          ),
        ],
        1,
        /latin1\.csv line 2, column 22: byte 0xE9 is not valid UTF-8.*--encoding windows-1252/,
      ],
      [['users', 'import', 'x.csv', '--delimiter', ';;'], 2, /--delimiter.*one character/],
      [
        ['users', 'import', 'x.csv', '--max-deactivate', '5'],
        2,
        /--max-deactivate works with --sync only/,
      ],
      [['users', 'import'], 2, /needs a CSV file/],
    ];
    for (const [args, code, message] of cases) {
      const r = await run(args);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), code]);
      expect(r.stderr).toMatch(message);
    }
    const headerOnly = await run([
      'users',
      'import',
      file('header.csv', 'externalId,email\n'),
      '-o',
      'json',
    ]);
    expect(headerOnly.code).toBe(0);
    expect(headerOnly.stderr).toContain('has a header but no rows');
    expect(await users()).toEqual([]);
  });

  test('--sync deactivates the absent, after showing who; refuses beyond --max-deactivate', async () => {
    const { run, json, users } = await inBranch();
    await json(['users', 'import', file('sync-all.csv', people('S', 20)), '--no-send-mail']);
    const most = file('sync-most.csv', people('S', 18));
    const synced = await run(['users', 'import', most, '--sync', '-o', 'json']);
    expect(synced.code).toBe(0);
    expect(JSON.parse(synced.stdout)).toMatchObject({ unchanged: 18, deactivated: 2 });
    expect(synced.stderr).toMatch(
      /--sync: 2 users of the branch are absent from .*sync-most\.csv:\n\s+\w{24} S-18 s18@example\.com/,
    );
    const status = async () =>
      Object.fromEntries((await users()).map((u) => [u.externalId, u.status]));
    expect((await status())['S-19']).toBe('deactivated');

    const few = file('sync-few.csv', people('S', 5));
    const refused = await run(['users', 'import', few, '--sync', '-o', 'json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /--sync would deactivate 13 users \(72\.2% of 18\), more than --max-deactivate 10% allows \(1\); nothing was changed/,
    );
    expect(refused.stdout).toBe('');
    expect(Object.values(await status()).filter((s) => s === 'deactivated')).toHaveLength(2);
    const dry = await run([
      'users',
      'import',
      few,
      '--sync',
      '--dry-run',
      '-o',
      'table',
      '--max-deactivate',
      '13',
    ]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/Deactivate \(absent from the file\)/);
    expect(Object.values(await status()).filter((s) => s === 'deactivated')).toHaveLength(2);
  });
});

describe('users export', () => {
  test('export → import is a no-op, to a file or stdout', async () => {
    const { run, json } = await inBranch();
    const csv = file(
      'rich.csv',
      'externalId,email,userName,firstName,lastName,role,locale,location,profile.costCenter\n' +
        'X-1,x1@example.com,x.one,"Ann ""Nan""","Lee, Jr.",admin,de_DE,"Floor 2, Room 7",CC-1\n' +
        'X-2,x2@example.com,,Bob,,reader,,,\n',
    );
    expect(await json(['users', 'import', csv, '--no-send-mail'])).toMatchObject({ created: 2 });
    const out = join(dir, 'export.csv');
    const exported = await run(['users', 'export', '--to', out]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain(`exported 2 users to ${out}`);
    const text = readFileSync(out, 'utf8');
    expect(text.split('\n')[0]).toBe([...EXPORT_COLUMNS, 'profile.costCenter'].join(','));
    expect((await run(['users', 'export'])).stdout).toBe(text);
    // `-` is stdout, as for media download (and stdin for import), not a file named `-`.
    const dash = await run(['users', 'export', '--to', '-']);
    expect([dash.stdout, dash.stderr]).toEqual([text, '']);
    // Into a named pipe: written into it, and it stays a pipe (renamed over, it would not).
    const fifo = join(dir, 'export.pipe');
    const piped = fifoReader(fifo);
    expect((await run(['users', 'export', '--to', fifo])).code).toBe(0);
    expect(await piped).toBe(text);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    // Another format is refused, not answered in CSV all the same.
    expect((await run(['users', 'export', '-o', 'csv'])).stdout).toBe(text);
    const asJson = await run(['users', 'export', '-o', 'json']);
    expect([asJson.code, asJson.stdout]).toEqual([2, '']);
    expect(asJson.stderr).toContain('use `roster users list --all -o json`');
    // An existing file is kept unless --force (the rule of media download).
    const again = await run(['users', 'export', '--to', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${out} already exists; pass --force to overwrite it`);
    expect((await run(['users', 'export', '--to', out, '--force'])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(text);
    expect(await json(['users', 'import', out])).toEqual({
      created: 0,
      updated: 0,
      unchanged: 2,
      deactivated: 0,
      failed: 0,
      rows: 2,
      invitations: 0,
    });
    expect(await json(['users', 'import', out, '--sync'])).toMatchObject({
      unchanged: 2,
      deactivated: 0,
    });
    const semi = (await run(['users', 'export', '--delimiter', ';', '--bom'])).stdout;
    expect(semi.startsWith('\ufeffexternalId;email;')).toBe(true);
    expect(await json(['users', 'import', file('semi.csv', semi)])).toMatchObject({ unchanged: 2 });
  });
});
