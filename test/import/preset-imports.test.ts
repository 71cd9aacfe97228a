/**
 * HR and identity exports as a user imports them: the CLI's run() against a real server on a
 * real port (in-process: a matrix; test/e2e/import.test.ts is the spawned journey), each format's
 * fixture (fixtures/csv/presets, the vendors' documented column names) with only
 * `--preset`. Without it the preset is suggested; leavers are never created nor invited; an
 * existing leaver is left alone, and deactivated with --sync. One server; each format in its own
 * branch (the fixtures' emails differ between formats, and emails are unique per tenant).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PRESETS, type PresetName } from '../../src/import/presets.js';
import { cliAgainst } from '../helpers/cli-run.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';
import { startServer, type TestServer } from '../helpers/server.js';

const dirs = scratch();

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'csv');

let server: TestServer;
const dir = dirs.temp('roster-presets-');
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
  await dirs.cleanup();
});

/** Per format: the emails it creates, its leavers, and the key of the leaver made beforehand. */
const FORMATS: Record<PresetName, { created: string[]; leavers: string[]; leaverKey?: string }> = {
  gam: {
    created: ['ada.lovelace@example.com', 'alan.turing@example.com', 'grace.hopper@example.com'],
    leavers: ['ken.thompson@example.com', 'dennis.ritchie@example.com'],
  },
  entra: {
    created: [
      'adele.vance@contoso.example',
      'alex.wilber@contoso.example',
      'diego@contoso.example',
    ],
    leavers: ['isaiah.langer@contoso.example'],
  },
  'entra-template': {
    created: ['alain@contoso.example', 'isabella@contoso.example'],
    leavers: ['joseph@contoso.example'],
  },
  okta: {
    created: ['maria.garcia@acme.example', 'li.wei@acme.example', 'sam.okafor@acme.example'],
    leavers: ['tom.berg@acme.example', 'ana.silva@acme.example'],
  },
  bamboohr: {
    created: [
      'cabbott@efficientoffice.example',
      'aadams@efficientoffice.example',
      'cagluinda@efficientoffice.example',
    ],
    leavers: ['jbryan@efficientoffice.example'],
    leaverKey: '4', // matched by Employee #
  },
  personio: {
    created: [
      'juergen.mueller@firma.example',
      'oezlem.sahin@firma.example',
      'chloe.weiss@firma.example',
    ],
    leavers: ['bjoern.gross@firma.example'],
  },
};

/** The CLI with a token of its own branch. */
async function inBranch(branch: string) {
  const run = cliAgainst(server, await server.token({ branch }), mkdtempSync(join(dir, 'config-')));
  const users = async () =>
    JSON.parse(
      (
        await run([
          ...['users', 'list', '--all'],
          ...['--status', 'activated,pending,deactivated', '-o', 'json'],
        ])
      ).stdout,
    ) as { id: string; email?: { value: string } | string; status: string }[];
  const statusOf = async () =>
    new Map(
      (await users()).map((u) => [
        typeof u.email === 'string' ? u.email : u.email?.value,
        u.status,
      ]),
    );
  return { run, statusOf };
}

/** The invitations `roster serve` wrote (its outbox, without an SMTP relay). */
const mails = () => {
  const outbox = join(server.dataDir, 'outbox');
  if (!existsSync(outbox)) return [];
  return readdirSync(outbox)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => readFileSync(join(outbox, f), 'utf8'));
};
const literally = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const mailedTo = (email: string) => mails().some((m) => m.includes(email));

describe.each(Object.keys(FORMATS) as PresetName[])('users import --preset %s', (name) => {
  const file = join(FIXTURES, 'presets', `${name}.csv`);
  const { created, leavers, leaverKey } = FORMATS[name];

  test('suggested without it; with only --preset: users made, leavers neither made nor invited; --sync deactivates an existing leaver', async () => {
    const { run, statusOf } = await inBranch(`preset-${name}`);

    // Without the preset: refused (its columns are not Roster's), with the preset suggested.
    const plain = await run(['users', 'import', file, '--dry-run']);
    expect(plain.code, plain.stderr).toBe(2); // usage: the file is fine, the options are not
    expect(plain.stderr).toMatch(
      new RegExp(`looks like an? ${literally(PRESETS[name].title)}: try --preset ${name}`),
    );

    // A leaver who is already a user (made without an invitation).
    const leaver = leavers[0]!;
    const seed = join(dir, `${name}-seed.csv`);
    writeFileSync(seed, `externalId,email\n${leaverKey ?? `seed-${name}`},${leaver}\n`);
    expect((await run(['users', 'import', seed, '--no-send-mail'])).code).toBe(0);

    // The plan names the leavers and what happens to them.
    const dry = await run(['users', 'import', file, '--preset', name, '--dry-run', '-o', 'table']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      /│ create\s+│ update\s+│ unchanged\s+│ deactivate\s+│ error\s+│ leaver/,
    );
    expect(dry.stdout).toContain('never created or invited');
    expect(dry.stdout).toMatch(new RegExp(`${leaverKey ?? leaver}\\s+│ .+│ left as is`, 'i'));
    expect(dry.stderr).toContain(
      `${created.length} invitation${created.length === 1 ? '' : 's'} would be queued`,
    );

    // The import: only --preset.
    const r = await run(['users', 'import', file, '--preset', name, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      created: created.length,
      invitations: created.length,
      updated: expect.any(Number),
      unchanged: expect.any(Number),
      deactivated: 0,
      failed: 0,
      rows: created.length + leavers.length,
      leavers: leavers.length,
    });
    expect(r.stderr).toMatch(/leavers? \(.+\): never created or invited/);
    const status = await statusOf();
    expect([...status.keys()].sort()).toEqual([...created, leaver].sort());
    expect(status.get(leaver)).toBe('pending'); // left as it was
    await eventually(() => created.every(mailedTo), 15_000);
    for (const l of leavers) expect(mailedTo(l), l).toBe(false);

    // --sync: the existing leaver is deactivated (and only them: everyone else is in the file).
    // (One of 3-4 users is beyond the default --max-deactivate 10%, which leavers count toward.)
    const refused = await run(['users', 'import', file, '--preset', name, '--sync']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--sync would deactivate 1 users .*1 of them marked as leavers/);
    const synced = await run([
      ...['users', 'import', file, '--preset', name],
      ...['--sync', '--max-deactivate', '1', '-o', 'json'],
    ]);
    expect(synced.code, synced.stderr).toBe(0);
    expect(JSON.parse(synced.stdout)).toMatchObject({ deactivated: 1, created: 0, failed: 0 });
    const after = await statusOf();
    expect(after.get(leaver)).toBe('deactivated');
    expect(created.map((e) => after.get(e))).not.toContain('deactivated');
    expect(mailedTo(leaver)).toBe(false);
  });
});

test('--help of users import explains presets, status columns and preambles', async () => {
  const { run } = await inBranch('help');
  const help = (await run(['users', 'import', '--help'])).stdout;
  for (const flag of ['--preset <format>', '--status-column', '--active-values', '--skip-lines']) {
    expect(help).toContain(flag);
  }
  for (const name of Object.keys(FORMATS)) expect(help).toMatch(new RegExp(`^  ${name}\\s`, 'm'));
  expect(help).toContain('sep=;');
  expect(help).toContain('macintosh');
});

describe('a file from Excel on a Mac', () => {
  test('Mac Roman is suggested as macintosh (not windows-1252), and its sep= line honoured', async () => {
    const { run } = await inBranch('mac');
    const file = join(FIXTURES, 'mac-roman.csv');
    const plain = await run(['users', 'import', file]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(
      /line 3, column 26: .*probably Mac Roman.*'Jürgen' where windows-1252 would read 'JŸrgen': try --encoding macintosh/,
    );
    const wrong = await run(['users', 'import', file, '--encoding', 'windows-1252', '--dry-run']);
    expect(wrong.stderr).toContain(
      "--encoding windows-1252 reads 'JŸrgen', macintosh reads 'Jürgen': try --encoding macintosh",
    );
    const r = await run([
      'users',
      'import',
      file,
      '--encoding',
      'macintosh',
      '--no-send-mail',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 3, failed: 0 });
    const names = JSON.parse((await run(['users', 'list', '--all', '-o', 'json'])).stdout).map(
      (u: { profile: { firstName: string; lastName: string; department: string } }) =>
        `${u.profile.firstName} ${u.profile.lastName} (${u.profile.department})`,
    );
    expect(names.sort()).toEqual([
      'François Ærø (Lager)',
      'Jürgen Müller (Einkauf)',
      'Zoë Straße (Verkauf)',
    ]);
  });
});
