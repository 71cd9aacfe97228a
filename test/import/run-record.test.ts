/** The run record's rules (import/run-record.ts) and the CLI's reading of it (import/resume.ts). */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { continueHint, whichRun } from '../../src/cli/commands/users/import/resume.js';
import {
  checkInput,
  fingerprint,
  flagsOf,
  type RunRecord,
  readRecord,
  resumedOptions,
  writeRecord,
} from '../../src/import/run-record.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();
afterAll(dirs.cleanup);

const dir = dirs.temp('roster-record-');

const record = (over: Partial<RunRecord['options']> = {}): RunRecord => ({
  kind: 'roster-import-run',
  version: 1,
  input: { path: '/data/hr.csv', size: 10, sha256: 'a'.repeat(64) },
  target: { baseUrl: 'https://acme.example.com/api', tenant: 'acme.example.com' },
  connection: { profile: 'prod' },
  options: { sendMail: false, preset: 'bamboohr', maps: ['Nr=externalId'], ...over },
  defaults: { role: 'reader' },
});

describe('resumedOptions', () => {
  it('takes the recorded options; the same value given again is fine', () => {
    const r = record();
    const given = { sendMail: false, preset: 'bamboohr' as const, maps: ['Nr=externalId'] };
    expect(resumedOptions(r, 'run.csv', given, new Set(['sendMail', 'preset', 'maps']))).toEqual(
      r.options,
    );
    // Not given: the defaults of this command do not count against the record.
    expect(resumedOptions(r, 'run.csv', { sendMail: true }, new Set())).toEqual(r.options);
  });

  it.each([
    [
      'sendMail',
      { sendMail: true },
      '--send-mail: the run in run.csv was started with --no-send-mail',
    ],
    [
      'preset',
      { sendMail: false, preset: 'okta' },
      '--preset okta: the run in run.csv was started with --preset bamboohr',
    ],
    [
      'maps',
      { sendMail: false, maps: ['X=email'] },
      '--map X=email: the run in run.csv was started with --map Nr=externalId',
    ],
    [
      'sync',
      { sendMail: false, sync: true },
      '--sync: the run in run.csv was started without --sync',
    ],
  ] as const)('another value of %s is refused, naming both', (key, given, message) => {
    const attempt = () =>
      resumedOptions(record(), 'run.csv', given as never, new Set([key as never]));
    expect(attempt).toThrow(message);
    try {
      attempt();
    } catch (err) {
      expect((err as { kind: string }).kind).toBe('usage');
    }
  });
});

describe('the record file', () => {
  it('is written whole, 0600, and read back; none beside an old report', async () => {
    const report = join(dir, 'run.csv');
    expect(() => readRecord(report)).toThrow(`--resume ${report}: no such file`);
    writeFileSync(report, 'row,line,key,action,id,status,error\n');
    expect(readRecord(report)).toBeUndefined();
    writeRecord(report, record());
    expect(statSync(`${report}.run.json`).mode & 0o777).toBe(0o600);
    expect(readRecord(report)).toEqual(record());
    writeFileSync(`${report}.run.json`, '{"kind":"something else"}');
    expect(() => readRecord(report)).toThrow(/is not a roster import run record/);
  });

  it('names what changed in the input', async () => {
    const file = join(dir, 'in.csv');
    writeFileSync(file, 'externalId\nE1\n');
    const now = await fingerprint(file);
    const r = { ...record(), input: { path: file, ...now } };
    expect(() => checkInput(r, 'run.csv', file, now)).not.toThrow();
    expect(() => checkInput(r, 'run.csv', file, { ...now, size: now.size + 1 })).toThrow(
      `its size was ${now.size} bytes and is ${now.size + 1} now`,
    );
    expect(() => checkInput(r, 'run.csv', file, { ...now, sha256: 'b'.repeat(64) })).toThrow(
      /its content changed \(SHA-256 .*; same size\)/,
    );
  });
});

describe('whichRun and the hint', () => {
  const flags = { globals: {}, explicit: new Set<string>() };

  it('a --resume report with a record: its file, options and profile', () => {
    const report = join(dir, 'resumed.csv');
    writeFileSync(report, 'row,line,key,action,id,status,error\n');
    writeRecord(report, record());
    const run = whichRun(undefined, { ...flags, resume: report, globals: { output: 'json' } });
    expect(run.file).toBe('/data/hr.csv');
    expect(run.options).toEqual(record().options);
    expect(run.globals).toEqual({ profile: 'prod', output: 'json' });
    expect(continueHint(run, report)).toBe(
      `The report ${report} has every row done so far; continue with: roster users import --resume ${report}`,
    );
  });

  it('a report without a record: the options of the command, and a warning', () => {
    const report = join(dir, 'old.csv');
    writeFileSync(report, 'row,line,key,action,id,status,error\n');
    const run = whichRun('people.csv', { ...flags, resume: report, sendMail: false });
    expect(run.unrecorded).toMatch(/has no run record beside it/);
    expect(run.options.sendMail).toBe(false);
  });

  it('without a report, the hint spells out every option that shapes the run', () => {
    const run = whichRun('HR export.csv', {
      ...flags,
      sendMail: false,
      map: ['Personal Nr=externalId'],
      statusColumn: 'Status',
      activeValues: ['Active', 'Onboarding'],
      globals: { profile: 'prod' },
    });
    expect(continueHint(run, undefined)).toContain(
      "roster users import 'HR export.csv' --map 'Personal Nr=externalId' --status-column Status --active-values Active,Onboarding --no-send-mail --profile prod",
    );
    expect(flagsOf({ sendMail: true })).toEqual([]);
  });
});
