import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  describeChanges,
  describeCreate,
  noteFailures,
  noteLeavers,
  renderPlan,
  renderSummary,
} from '../../../../../src/cli/commands/users/import/format.js';
import type { IO } from '../../../../../src/cli/context.js';
import { progress, progressLine } from '../../../../../src/cli/output/progress-line.js';
import type { Plan } from '../../../../../src/import/plan.js';
import { pack } from '../../../../../src/import/snapshot.js';

function fakeIO(tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c) => out.push(String(c)));
  stderr.on('data', (c) => err.push(String(c)));
  const io: IO = {
    stdout,
    stderr,
    stdin: new PassThrough(),
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    stdinIsTTY: false,
    color: false,
  };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

const plan: Plan = {
  file: 'people.csv',
  delimiter: ',',
  match: 'externalId',
  rows: 4,
  counts: { create: 1, update: 1, unchanged: 1, error: 1, skip: 0, leaver: 0, deactivate: 0 },
  statusColumns: [],
  leavers: [],
  invitations: 1,
  preview: [
    {
      row: 1,
      line: 2,
      key: 'E-1',
      action: 'create',
      values: { externalId: 'E-1', email: 'a@example.com', secret: 'hunter2hunter2' },
    },
    {
      row: 2,
      line: 3,
      key: 'E-2',
      action: 'update',
      id: 'u2',
      changes: [{ field: 'department', from: 'Sales', to: null }],
    },
  ],
  errors: [
    {
      row: 4,
      line: 5,
      key: 'E-4',
      action: 'error',
      error: "email 'x@' is not a valid email address",
    },
  ],
  deactivate: [
    {
      id: 'u9',
      status: 'activated',
      packed: pack({ externalId: 'E-9', email: 'gone@example.com' }),
    },
  ],
  active: 3,
  actions: [],
  keys: [],
};

describe('format', () => {
  it('describes creates (secrets masked, key left out) and changes', () => {
    expect(describeCreate(plan.preview[0]!.values!, 'externalId')).toBe(
      'email=a@example.com, secret=***',
    );
    expect(describeChanges(plan.preview[1]!.changes!)).toBe('department: Sales → (empty)');
  });

  it('quotes a value that holds a comma (or a separator, quote or edge space): one reading only', () => {
    expect(
      describeChanges([
        { field: 'department', from: 'Sales, EMEA', to: 'Sales' },
        { field: 'position', from: 'a → b', to: ' CTO' },
        { field: 'location', from: 'Berlin', to: 'Say "hi"' },
      ]),
    ).toBe(
      'department: "Sales, EMEA" → Sales, position: "a → b" → " CTO", location: Berlin → "Say \\"hi\\""',
    );
    expect(describeCreate({ email: 'a@example.com', department: 'R&D, Lab' }, 'externalId')).toBe(
      'email=a@example.com, department="R&D, Lab"',
    );
  });

  it('a dry run on a terminal: counts, first changes, deactivations', async () => {
    const { io, out } = fakeIO(true);
    const summary = { created: 1, updated: 1, unchanged: 1, deactivated: 1, failed: 1, rows: 4 };
    await renderPlan(io, 'table', plan, summary, 'externalId');
    const text = out();
    expect(text).toContain('Plan for people.csv (4 rows; nothing has been changed):');
    expect(text).toMatch(/│ create │ update │ unchanged │ deactivate │ error │/);
    expect(text).toMatch(/│ 3\s+│ update │ E-2\s+│ department: Sales → \(empty\)/);
    expect(text).toMatch(/│ u9 │ E-9\s+│ gone@example.com │ activated │/);
  });

  it('leavers: a column of the counts, and who they are with what happens to them', async () => {
    const { io, out } = fakeIO(true);
    const withLeavers: Plan = {
      ...plan,
      counts: { ...plan.counts, leaver: 2, deactivate: 1 },
      statusColumns: ['Status'],
      leavers: [
        { row: 5, line: 6, key: 'E-5', action: 'leaver', leaver: 'Status=Inactive' },
        { row: 6, line: 7, key: 'E-6', action: 'leaver', id: 'u6', leaver: 'Status=Inactive' },
        { row: 7, line: 8, key: 'E-7', action: 'deactivate', id: 'u7', leaver: 'Status=Inactive' },
      ],
    };
    const summary = {
      ...{ created: 1, updated: 1, unchanged: 1, deactivated: 2, failed: 1, rows: 7 },
      leavers: 3,
    };
    await renderPlan(io, 'table', withLeavers, summary, 'externalId');
    const text = out();
    expect(text).toMatch(/│ create │ update │ unchanged │ deactivate │ error │ leaver │/);
    expect(text).toContain('Leavers (Status; never created or invited):');
    expect(text).toMatch(/│ 6\s+│ E-5\s+│ Status=Inactive │ not created/);
    expect(text).toMatch(/│ 7\s+│ E-6\s+│ Status=Inactive │ left as is \(--sync deactivates\)/);
    expect(text).toMatch(/│ 8\s+│ E-7\s+│ Status=Inactive │ deactivate \(--sync\)/);
    const { io: io2, err } = fakeIO();
    noteLeavers(io2, withLeavers);
    expect(err()).toMatch(
      /^3 rows are leavers \(Status\): never created or invited; 1 to deactivate/,
    );
  });

  it('the summary for scripts is the contract shape', async () => {
    const { io, out } = fakeIO();
    await renderSummary(io, 'json', {
      created: 1,
      updated: 2,
      unchanged: 3,
      deactivated: 0,
      failed: 0,
      rows: 6,
    });
    expect(JSON.parse(out())).toEqual({
      created: 1,
      updated: 2,
      unchanged: 3,
      deactivated: 0,
      failed: 0,
      rows: 6,
    });
  });

  it('lists failures with line and key, at most 100, then points at the report', () => {
    const { io, err } = fakeIO();
    const failures = Array.from({ length: 102 }, (_, i) => ({
      line: i + 2,
      key: `E-${i}`,
      action: 'create' as const,
      status: 'failed' as const,
      error: 'boom',
    }));
    noteFailures(
      io,
      [{ action: 'deactivate', status: 'failed', id: 'u9', error: 'gone' }, ...failures],
      'r.csv',
    );
    const lines = err().trim().split('\n');
    expect(lines[0]).toBe('deactivate u9: gone');
    expect(lines[1]).toBe('line 2 (E-0): boom');
    expect(lines.at(-1)).toBe('… and 3 more failed rows: see r.csv');
  });
});

describe('progress', () => {
  it('shows done/total, rate and ETA', () => {
    expect(progressLine('importing', 250, 1000, 5000)).toBe(
      'importing [######------------------] 250/1000 25%  50/s  ETA 15s',
    );
    expect(progressLine('importing', 0, 1000, 0)).toMatch(/0\/1000 0% {2}0\/s {2}ETA \?$/);
    expect(progressLine('importing', 10, 100_000, 1000)).toMatch(/ETA 2h47m$/);
  });

  it('draws only on a terminal, at most every 100 ms', () => {
    let now = 0;
    const tty = fakeIO(true);
    const bar = progress(tty.io, 'importing', 3, () => now);
    bar.tick();
    now = 150;
    bar.tick();
    bar.tick();
    bar.end();
    expect(
      tty
        .err()
        .split('\r')
        .filter((s) => s.includes('importing')),
    ).toHaveLength(3);
  });

  it('when stderr is not a terminal (cron): a plain line every 10 % or every 10 s', () => {
    let now = 0;
    const piped = fakeIO(false);
    const log = progress(piped.io, 'importing', 1000, () => now);
    for (let i = 0; i < 250; i++) log.tick(); // 10 % and 20 %
    now = 11_000;
    log.tick(); // 10 s later, before 30 %
    for (let i = 0; i < 749; i++) log.tick(); // 30 % … 100 %
    log.end();
    const lines = piped.err().trimEnd().split('\n');
    expect(lines[0]).toBe('importing 100/1000 10%');
    expect(lines[2]).toMatch(/^importing 251\/1000 25% {2}23\/s {2}ETA 33s$/);
    expect(lines.at(-1)).toMatch(/^importing 1000\/1000 100%/);
    expect(lines).toHaveLength(11);
    expect(piped.err()).not.toContain('\r');
  });
});
