import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveHeader } from '../../src/import/columns.js';
import { buildPlan, type Entry, type PlanOptions, replayPlan } from '../../src/import/plan.js';
import { openCsv } from '../../src/import/read.js';
import { type KnownUser, pack, snapshotOf } from '../../src/import/snapshot.js';
import { fixture, tempCsv } from './helpers.js';

/** Both passes: the plan, and every row as the second pass yields it. */
async function plan(path: string, users: KnownUser[] = [], opts: Partial<PlanOptions> = {}) {
  const options = { match: opts.match ?? 'externalId', ...opts } as PlanOptions;
  const snapshot = snapshotOf(users);
  const csv = await openCsv(path);
  const columns = resolveHeader(csv.header, { file: path });
  const p = await buildPlan(csv, columns, snapshot, options);
  const entries: Entry[] = [];
  for await (const e of replayPlan(p, await openCsv(path), columns, snapshot, options))
    entries.push(e);
  return { ...p, entries };
}

const known = (
  id: string,
  values: Record<string, string>,
  status: KnownUser['status'] = 'activated',
): KnownUser => ({ id, status, packed: pack(values) });

describe('buildPlan', () => {
  it('classifies create / update (with changes) / unchanged', async () => {
    const p = await plan(
      tempCsv(
        'externalId,email,firstName\nE-1,a@example.com,Ann\nE-2,b@example.com,Bob\nE-3,c@example.com,Cem\n',
      ),
      [
        known('u1', { externalId: 'E-1', email: 'a@example.com', firstName: 'Ann' }),
        known('u2', { externalId: 'E-2', email: 'b@example.com', firstName: 'Robert' }),
      ],
    );
    expect(p.entries.map((e) => [e.line, e.action, e.id])).toEqual([
      [2, 'unchanged', 'u1'],
      [3, 'update', 'u2'],
      [4, 'create', undefined],
    ]);
    expect(p.entries[1]!.changes).toEqual([{ field: 'firstName', from: 'Robert', to: 'Bob' }]);
  });

  it('reports invalid values by line and column name, and keeps going', async () => {
    const p = await plan(fixture('bad/invalid-values.csv'));
    expect(p.entries.map((e) => [e.line, e.action])).toEqual([
      [2, 'error'],
      [3, 'error'],
      [4, 'error'],
      [5, 'create'],
    ]);
    expect(p.entries[0]!.error).toBe("email 'not-an-email' is not a valid email address");
    expect(p.entries[1]!.error).toMatch(/^role 'boss' must be one of admin/);
    expect(p.entries[2]!.error).toMatch(/^locale 'english' must have the form xx_YY/);
  });

  it('a userName with a zero-width space is an error row; a fullwidth twin of a known user updates it (identity.ts)', async () => {
    const p = await plan(
      tempCsv('userName,firstName\nann\u200b.lee,Ann\nｂｏ.ｋｉｍ,Bo\n'),
      [known('u1', { userName: 'bo.kim', firstName: 'B' })],
      { match: 'userName' as PlanOptions['match'] },
    );
    expect(p.entries.map((e) => [e.line, e.action, e.id])).toEqual([
      [2, 'error', undefined],
      [3, 'update', 'u1'],
    ]);
    expect(p.entries[0]!.error).toMatch(/^userName .* invisible format characters/);
  });

  it('rows with too few or too many fields are errors; trailing empty fields are fine', async () => {
    const p = await plan(fixture('bad/field-count.csv'));
    expect(p.entries.map((e) => [e.line, e.action, e.error])).toEqual([
      [2, 'create', undefined],
      [3, 'error', 'has 2 fields, the header has 3'],
      [4, 'error', 'has 4 fields, the header has 3 (a delimiter inside an unquoted value?)'],
      [5, 'create', undefined],
    ]);
  });

  it('duplicates of the match key (and of emails) fail every row involved', async () => {
    const p = await plan(fixture('bad/duplicate-keys.csv'));
    expect(p.entries.map((e) => [e.line, e.action])).toEqual([
      [2, 'error'],
      [3, 'error'],
      [4, 'error'],
      [5, 'error'],
    ]);
    expect(p.entries[0]!.error).toBe("externalId 'A-1' appears on several lines (2, 4)");
    expect(p.entries[1]!.error).toBe("email 'b@example.com' appears on several lines (3, 5)");
  });

  it('needs the match-key column, and a key in every row', async () => {
    await expect(plan(fixture('bad/no-key-column.csv'))).rejects.toThrow(
      /has no externalId column.*--match email/,
    );
    const p = await plan(tempCsv('externalId,email\n,a@example.com\n'));
    expect(p.entries[0]!.error).toBe('externalId is empty; it is the match key');
  });

  it('a new user needs an email or a userName', async () => {
    const p = await plan(tempCsv('externalId,firstName\nE-1,Ann\n'));
    expect(p.entries[0]!.error).toBe('a new user needs an email or a userName');
  });

  it('--match email matches without case', async () => {
    const p = await plan(
      tempCsv('email,firstName\nANN@example.com,Ann\n'),
      [known('u1', { email: 'ann@example.com', firstName: 'Ann' })],
      {
        match: 'email',
      },
    );
    expect(p.entries[0]).toMatchObject({ action: 'unchanged', id: 'u1' });
  });

  it('a key another user holds fails the row, naming that user and the key', async () => {
    const users = [
      known('u-ann', { email: 'ann@example.com' }), // invited by hand: no externalId
      known('u-bob', { externalId: 'E-2', email: 'bob@example.com', userName: 'bob' }),
      known('u-cem', { externalId: 'E-3', email: 'cem@example.com' }),
    ];
    const p = await plan(
      tempCsv(
        [
          'externalId,email,userName',
          'E-1,ANN@example.com,', // create: the email is Ann's, whatever its case
          'E-3,bob@example.com,', // update: Cem would take Bob's email
          'E-4,new@example.com,BOB', // create: Bob's userName, without case
          'E-5,other@example.com,', // create: free keys
        ].join('\n'),
      ),
      users,
    );
    expect(p.entries.map((e) => [e.line, e.action, e.error])).toEqual([
      [2, 'error', "email 'ANN@example.com' is already used by user u-ann (no externalId)"],
      [3, 'error', "email 'bob@example.com' is already used by user u-bob (externalId 'E-2')"],
      [4, 'error', "userName 'BOB' is already used by user u-bob (externalId 'E-2')"],
      [5, 'create', undefined],
    ]);
    expect(p.counts).toMatchObject({ create: 1, error: 3 });
  });

  it('compares keys in Unicode NFC: externalId with case, userName and email without', async () => {
    const composed = 'Jos\u00e9';
    const decomposed = 'Jose\u0301';
    const users = [
      known('u1', { externalId: composed, userName: composed, email: 'jose@example.com' }),
    ];
    const p = await plan(
      tempCsv(
        `externalId,userName,email\n${decomposed},${decomposed.toUpperCase()},JOSE@example.com\njosé,x,x@example.com\n`,
      ),
      users,
    );
    expect(p.entries.map((e) => [e.action, e.id])).toEqual([
      ['unchanged', 'u1'], // its own keys, however they are encoded and cased
      ['create', undefined], // externalIds are case-exact: 'josé' is somebody else
    ]);
  });

  it('refuses custom fields past the service bounds, counting what the user has', async () => {
    const held = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`profile.f${i}`, 'x']));
    const p = await plan(tempCsv('externalId,profile.extra\nE-1,y\n'), [
      known('u1', { externalId: 'E-1', ...held }),
    ]);
    expect(p.entries[0]).toMatchObject({ action: 'error' });
    expect(p.entries[0]!.error).toMatch(/^profile may hold at most 100 custom fields/);
  });

  it('--sync lists live users absent from the file, protects rows with errors, reactivates', async () => {
    const users = [
      known('u1', { externalId: 'E-1', email: 'a@example.com' }),
      known('u2', { externalId: 'E-2', email: 'b@example.com' }, 'deactivated'),
      known('u3', { externalId: 'E-3' }, 'pending'),
      known('u4', { email: 'no-key@example.com' }),
      known('u5', { externalId: 'E-5' }),
      known('u6', { externalId: 'E-6' }, 'deactivated'),
    ];
    const p = await plan(
      tempCsv('externalId,email\nE-1,a@example.com\nE-2,b@example.com\nE-5,bad-email\n'),
      users,
      { sync: true },
    );
    expect(p.deactivate.map((u) => u.id)).toEqual(['u3', 'u4']);
    expect(p.active).toBe(4);
    expect(p.entries[1]).toMatchObject({
      action: 'update',
      changes: [{ field: 'status', to: 'activated' }],
    });
    expect(p.entries[2]!.action).toBe('error');
  });

  it('--resume skips done rows, and refuses a report of another file', async () => {
    const path = tempCsv('externalId,email\nE-1,a@example.com\nE-2,b@example.com\n');
    const p = await plan(path, [], { done: new Map([[1, { key: 'E-1' }]]) });
    expect(p.entries.map((e) => e.action)).toEqual(['skip', 'create']);
    await expect(plan(path, [], { done: new Map([[2, { key: 'E-9' }]]) })).rejects.toThrow(
      /written for another file: row 2 has externalId 'E-9' there and 'E-2'/,
    );
  });

  it('keeps the first changes for the preview, and counts', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `E-${i},e${i}@example.com`).join('\n');
    const p = await plan(tempCsv(`externalId,email\n${rows}\nE-x,bad\n`), [], { preview: 5 });
    expect(p.preview.map((e) => e.key)).toEqual(['E-0', 'E-1', 'E-2', 'E-3', 'E-4']);
    expect(p.counts).toMatchObject({ create: 30, update: 0, unchanged: 0, error: 1, skip: 0 });
    expect(p.errors.map((e) => e.line)).toEqual([32]);
  });

  it('notices a file that changed between the two passes', async () => {
    const path = tempCsv('externalId,email\nE-1,a@example.com\n');
    const csv = await openCsv(path);
    const columns = resolveHeader(csv.header, { file: path });
    const options = { match: 'externalId' } as const;
    const snapshot = snapshotOf([]);
    const p = await buildPlan(csv, columns, snapshot, options);
    writeFileSync(path, 'externalId,email\nE-2,b@example.com\n');
    const replay = async () => {
      for await (const _ of replayPlan(p, await openCsv(path), columns, snapshot, options));
    };
    await expect(replay()).rejects.toThrow(/changed while it was being imported \(row 1\)/);
  });

  it('with keepRows, pass two replays pass one: the same entries, and no second read', async () => {
    const path = fixture('aliases.csv');
    const users = [known('u1', { externalId: 'X-1', email: 'old@example.com' })];
    const twice = await plan(path, users);
    const csv = await openCsv(path);
    const columns = resolveHeader(csv.header, { file: path });
    const options = { match: 'externalId', keepRows: true } as const;
    const snapshot = snapshotOf(users);
    const once = await buildPlan(csv, columns, snapshot, options);
    expect(once.kept).toHaveLength(twice.rows);
    const entries: Entry[] = [];
    // The records were read already: pass two takes none from this file.
    for await (const e of replayPlan(once, csv, columns, snapshot, options)) entries.push(e);
    expect(entries).toEqual(twice.entries);
    expect(entries.length).toBeGreaterThan(0);
  });
});

describe('--sync and unusable rows', () => {
  it('a row with the wrong number of fields still protects the user its key names', async () => {
    const p = await plan(
      tempCsv(
        'externalId,email,firstName\ns1,s1@x.com,Ann\ns2,s2@x.com,Bob, Jr\ns3,s3@x.com,Cem\n',
      ),
      [
        known('u1', { externalId: 's1', email: 's1@x.com', firstName: 'Ann' }),
        known('u2', { externalId: 's2', email: 's2@x.com', firstName: 'Bob' }),
        known('u3', { externalId: 's3', email: 's3@x.com', firstName: 'Cem' }),
        known('u4', { externalId: 's4', email: 's4@x.com', firstName: 'Dan' }),
      ],
      { sync: true },
    );
    expect(p.entries.find((e) => e.line === 3)?.action).toBe('error');
    expect(p.deactivate.map((u) => u.id)).toEqual(['u4']);
  });
});
