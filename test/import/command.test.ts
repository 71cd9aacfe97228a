/** `users import` / `users export`: flags → options (the run functions are covered end to end). */
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import * as exportCmd from '../../src/cli/commands/users/export.js';
import * as importCmd from '../../src/cli/commands/users/import.js';
import type { Deps } from '../../src/cli/context.js';

const deps: Deps = {
  io: {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    color: false,
  },
  env: {},
};

async function parse(argv: string[]) {
  const root = new Command('roster')
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  root.option('-o, --output <format>');
  const users = root.command('users');
  let captured: { csv?: string; opts: Record<string, unknown> } | undefined;
  importCmd.register(users, deps, async (csv, opts) => {
    captured = { csv, opts: opts as unknown as Record<string, unknown> };
  });
  exportCmd.register(users, deps, async (opts) => {
    captured = { opts: opts as unknown as Record<string, unknown> };
  });
  for (const c of [root, users, ...users.commands]) c.exitOverride();
  await root.parseAsync(argv, { from: 'user' });
  return captured!;
}

describe('users import flags', () => {
  it('defaults', async () => {
    const { csv, opts } = await parse(['users', 'import', 'people.csv']);
    expect(csv).toBe('people.csv');
    expect(opts).toMatchObject({ concurrency: 8 });
    expect(opts.match).toBeUndefined(); // the preset's, else externalId
    expect(opts.sendMail).toBeUndefined(); // = true
  });

  it.each([
    [['--match', 'email'], { match: 'email' }],
    [['--delimiter', 'tab'], { delimiter: '\t' }],
    [['--encoding', 'windows-1252'], { encoding: 'windows-1252' }],
    [['--map', 'A=externalId', '--map', 'B='], { map: ['A=externalId', 'B='] }],
    [['--no-send-mail', '--concurrency', '2'], { sendMail: false, concurrency: 2 }],
    [['--sync', '--max-deactivate', '5%'], { sync: true, maxDeactivate: { percent: 5 } }],
    [
      [
        '--report',
        'r.csv',
        '--resume',
        'old.csv',
        '--dry-run',
        '--empty-clears',
        '--ignore-unknown',
      ],
      { report: 'r.csv', resume: 'old.csv', dryRun: true, emptyClears: true, ignoreUnknown: true },
    ],
    [['-o', 'json'], { globals: expect.objectContaining({ output: 'json' }) }],
    [['--preset', 'entra-template'], { preset: 'entra-template' }],
    [['--encoding', 'macintosh'], { encoding: 'macintosh' }],
    [
      ['--status-column', 'Status', '--active-values', ' Active, Onboarding '],
      { statusColumn: 'Status', activeValues: ['Active', 'Onboarding'] },
    ],
    [['--skip-lines', '2'], { skipLines: 2 }],
    [
      ['--photos', 'hr-photos', '--photo-name', '#localpart#', '--photo-name', 'p-#externalId#'],
      { photos: 'hr-photos', photoName: ['#localpart#', 'p-#externalId#'] },
    ],
  ])('%j', async (flags, expected) => {
    expect((await parse(['users', 'import', 'p.csv', ...flags])).opts).toMatchObject(expected);
  });

  it.each([
    [['--match', 'userName'], /Allowed choices are externalId, email/],
    [['--delimiter', ';;'], /one character/],
    [['--encoding', 'klingon'], /unknown encoding/],
    [['--concurrency', '0'], /1 to 64/],
    [['--max-deactivate', 'lots'], /count such as 25/],
    [
      ['--preset', 'workday'],
      /Allowed choices are gam, entra, entra-template, okta, bamboohr, personio/,
    ],
    [['--skip-lines', '-1'], /number of lines/],
    [['--active-values', ','], /one or more values/],
  ])('refuses %j', async (flags, message) => {
    await expect(parse(['users', 'import', 'p.csv', ...flags])).rejects.toThrow(message);
  });

  it('usage errors from the run function, before any request', async () => {
    const globals = {};
    await expect(
      importCmd.runImport(undefined, { match: 'externalId', concurrency: 8, globals }, deps),
    ).rejects.toMatchObject({ exitCode: 2 });
    await expect(
      importCmd.runImport(
        'p.csv',
        { match: 'externalId', concurrency: 8, maxDeactivate: { count: 1 }, globals },
        deps,
      ),
    ).rejects.toThrow(/works with --sync only/);
    await expect(
      importCmd.runImport('p.csv', { statusColumn: 'Status', concurrency: 8, globals }, deps),
    ).rejects.toThrow(/--status-column and --active-values go together/);
  });
});

describe('users export flags', () => {
  it.each([
    [[], {}],
    [['--status', 'all'], { status: ['activated', 'pending', 'deactivated'] }],
    [
      ['--status', 'deactivated', '--to', 'out.csv', '--delimiter', ';', '--bom'],
      { status: ['deactivated'], to: 'out.csv', delimiter: ';', bom: true },
    ],
  ])('%j', async (flags, expected) => {
    expect((await parse(['users', 'export', ...flags])).opts).toMatchObject(expected);
  });

  it('refuses an unknown status', async () => {
    await expect(parse(['users', 'export', '--status', 'deleted'])).rejects.toThrow(
      /expected activated/,
    );
  });
});
