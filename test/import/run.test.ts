/** The whole pipeline against the real app in-process: import, re-run, updates, conflicts, sync. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../src/client/index.js';
import { applyPlan, type Outcome } from '../../src/import/apply.js';
import { resolveHeader } from '../../src/import/columns.js';
import { exportUsers } from '../../src/import/export.js';
import { buildPlan, replayPlan } from '../../src/import/plan.js';
import { openCsv } from '../../src/import/read.js';
import { type ImportOptions, importCsv } from '../../src/import/run.js';
import { takeSnapshot, valuesOf } from '../../src/import/snapshot.js';
import { eventually } from '../helpers/eventually.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { EXPORT_COLUMNS } from '../helpers/user-fields.js';
import { fixture, tempCsv } from './helpers.js';

let server: TestServer;
let client: ApiClient;

// A fresh service per test: uniqueness is per tenant, so tests must not share one.
beforeEach(async () => {
  server = await startServer();
  client = createApiClient({ baseUrl: `${server.url}/api`, token: server.adminToken });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

const run = (opts: Omit<ImportOptions, 'file'> & { file?: string }, csv?: string) =>
  importCsv(client, { file: opts.file ?? tempCsv(csv ?? ''), sendMail: false, ...opts });

async function users() {
  const all = [];
  for await (const u of client.iterateUsers({ status: ['activated', 'pending', 'deactivated'] }))
    all.push(u);
  return all;
}

const PEOPLE =
  'externalId,email,firstName,lastName,department\nE-1,a@example.com,Ann,Lee,Sales\nE-2,b@example.com,Bob,Stone,Sales\nE-3,c@example.com,Cem,Kaya,IT\n';

describe('importCsv', () => {
  it('creates, then a re-run changes nothing, then changed rows update', async () => {
    const first = await run({}, PEOPLE);
    expect(first.summary).toEqual({
      created: 3,
      updated: 0,
      unchanged: 0,
      deactivated: 0,
      failed: 0,
      rows: 3,
      invitations: 0,
    });
    expect((await users()).map((u) => u.externalId).sort()).toEqual(['E-1', 'E-2', 'E-3']);

    const again = await run({}, PEOPLE);
    expect(again.summary).toMatchObject({ created: 0, updated: 0, unchanged: 3 });

    const changed = await run({}, PEOPLE.replace('Bob,Stone,Sales', 'Bob,Stone,Marketing'));
    expect(changed.summary).toMatchObject({ updated: 1, unchanged: 2 });
    const bob = (await users()).find((u) => u.externalId === 'E-2')!;
    expect(bob.profile.department).toBe('Marketing');
    expect(bob.profile.firstName).toBe('Bob');
  });

  it('empty cells leave fields alone; --empty-clears clears them', async () => {
    await run({}, PEOPLE);
    const blank = 'externalId,email,firstName,lastName,department\nE-1,a@example.com,Ann,,\n';
    expect((await run({}, blank)).summary).toMatchObject({ unchanged: 1 });
    expect((await run({ emptyClears: true }, blank)).summary).toMatchObject({ updated: 1 });
    const ann = (await users()).find((u) => u.externalId === 'E-1')!;
    expect([ann.profile.lastName, ann.profile.department]).toEqual([null, null]);
  });

  it('reads every dialect and alias fixture into the same users', async () => {
    await run({ file: fixture('aliases.csv') });
    await run({
      file: fixture('semicolon-bom-crlf.csv'),
      maps: [
        'Personalnummer=externalId',
        'Vorname=firstName',
        'Nachname=lastName',
        'Abteilung=department',
      ],
    });
    await run({ file: fixture('windows-1252.csv'), encoding: 'windows-1252' });
    await run({ file: fixture('utf16le-tab.txt') });
    // A tab or line break inside a quoted cell is read, and then refused as a control
    // character (CONTRACT "Users"): that row fails alone, the rest is imported.
    const tabs = await run({ file: fixture('tab.tsv') });
    const lines = await run({ file: fixture('quoted-newlines.csv') });
    expect(tabs.summary).toMatchObject({ created: 1, failed: 1 });
    expect(lines.summary).toMatchObject({ created: 2, failed: 2 });
    const byId = new Map((await users()).map((u) => [u.externalId, u]));
    expect(byId.size).toBe(2 + 2 + 2 + 2 + 1 + 2);
    expect(byId.get('Q-2')!.profile.firstName).toBe('Ada "The Countess"');
    expect(byId.get('Q-2')!.profile.location).toBe('Ockham, Surrey');
    expect(byId.get('X-1')!.profile).toMatchObject({
      firstName: 'Xena',
      position: 'Analyst',
      costCenter: 'CC-100',
    });
    expect(byId.get('X-1')!.config.locale).toBe('fr_FR');
    expect(byId.get('P-002')!.profile.department).toBe('Forschung; Entwicklung');
    expect(byId.get('W-1')!.profile.lastName).toBe('Ærø');
    expect(byId.get('U-2')!.profile.firstName).toBe('李');
  });

  it('partial failure: bad rows and rejected rows fail alone, with lines; the rest is applied', async () => {
    // Taken in another branch: the plan cannot see it, the service refuses it (emails are
    // unique in the tenant).
    const elsewhere = createApiClient({
      baseUrl: `${server.url}/api`,
      token: await server.token({ branch: 'elsewhere' }),
    });
    await elsewhere.createUser({
      email: 'taken@example.com',
      externalId: 'OTHER',
      sendMail: false,
    });
    await elsewhere.close();
    const csv =
      'externalId,email,firstName\nE-1,a@example.com,Ann\nE-2,not-an-email,Bob\nE-3,taken@example.com,Cem\nE-4,d@example.com,Dan\n';
    const report = tempCsv('', 'partial-report.csv');
    const result = await run({ report }, csv);
    expect(result.summary).toEqual({
      created: 2,
      updated: 0,
      unchanged: 0,
      deactivated: 0,
      failed: 2,
      rows: 4,
      invitations: 0,
    });
    expect(result.failures.map((f) => [f.line, f.key])).toEqual([
      [3, 'E-2'],
      [4, 'E-3'],
    ]);
    expect(result.failures[1]!.error).toMatch(/email 'taken@example.com' is already used.*\(409\)/);
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('row,line,key,action,id,status,error,invitation');
    expect(lines.slice(1).sort()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^2,3,E-2,error,,failed,/),
        expect.stringMatching(/^3,4,E-3,create,,failed,/),
      ]),
    );
    expect(lines).toHaveLength(5);
  });

  it('a 409 on the match key when creating means "already there": read back and converge', async () => {
    const csv = tempCsv(
      'externalId,email,firstName\nE-1,a@example.com,Ann\nE-2,b@example.com,Bob\n',
    );
    const file = await openCsv(csv);
    const columns = resolveHeader(file.header, { file: csv });
    const snapshot = await takeSnapshot(client);
    const plan = await buildPlan(file, columns, snapshot, { match: 'externalId' });
    // Someone (or a run killed after its POST) created them after the snapshot.
    await client.createUser({
      externalId: 'E-1',
      email: 'a@example.com',
      profile: { firstName: 'Ann' },
      sendMail: false,
    });
    await client.createUser({
      externalId: 'E-2',
      email: 'b@example.com',
      profile: { firstName: 'Robert' },
      sendMail: false,
    });
    const outcomes: Outcome[] = [];
    const rows = replayPlan(plan, await openCsv(csv), columns, snapshot, { match: 'externalId' });
    await applyPlan(client, rows, [], {
      match: 'externalId',
      concurrency: 2,
      sendMail: false,
      onOutcome: (o) => outcomes.push(o),
    });
    expect(outcomes.map((o) => [o.key, o.action, o.status]).sort()).toEqual([
      ['E-1', 'unchanged', 'ok'],
      ['E-2', 'update', 'ok'],
    ]);
    expect((await users()).find((u) => u.externalId === 'E-2')!.profile.firstName).toBe('Bob');
  });

  it('the dry run sees the conflicts the run meets: a key held by a user invited by hand', async () => {
    const ann = await client.createUser({ email: 'ann@example.com', sendMail: false });
    const csv = 'externalId,email,firstName\nE1,ann@example.com,Ann\nE2,bob@example.com,Bob\n';
    const file = tempCsv(csv);
    const dry = await run({ dryRun: true, file });
    const wet = await run({ file });
    for (const result of [dry, wet]) {
      expect(result.summary).toMatchObject({ created: 1, failed: 1 });
      expect(result.failures.map((f) => [f.line, f.error])).toEqual([
        [2, `email 'ann@example.com' is already used by user ${ann.user.id} (no externalId)`],
      ]);
    }
  });

  it('--match email, and secrets only on create', async () => {
    const csv = 'email,firstName,secret\nann@example.com,Ann,first-secret-1\n';
    expect((await run({ match: 'email' }, csv)).summary).toMatchObject({ created: 1 });
    expect((await users())[0]!.status).toBe('activated'); // a secret activates
    const again = await run(
      { match: 'email' },
      csv.replace('ann@', 'ANN@').replace('first-secret-1', 'other-secret-2'),
    );
    expect(again.summary).toMatchObject({ unchanged: 1 });
  });

  it('invitations: sent by default, not with sendMail false', async () => {
    const outbox = join(server.dataDir, 'outbox');
    const count = () =>
      existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')).length : 0;
    const before = count();
    const quiet = await run({ sendMail: false }, 'externalId,email\nM-1,m1@example.com\n');
    const report = tempCsv('', 'invitations-report.csv');
    const mailed = await run(
      { sendMail: true, report },
      'externalId,email,userName\nM-2,m2@example.com,\nM-3,,m3\n',
    );
    // Counted as what the service accepted to send: one per new user with an email.
    expect([quiet.summary.invitations, mailed.summary.invitations]).toEqual([0, 1]);
    expect(readFileSync(report, 'utf8').split('\n').slice(1, 3).sort()).toEqual([
      expect.stringMatching(/^1,2,M-2,create,\w+,ok,,queued$/),
      expect.stringMatching(/^2,3,M-3,create,\w+,ok,,$/),
    ]);
    await eventually(
      async () => count() === before + 1 && (await server.store.outbox.pending()) === 0,
    );
    expect(readdirSync(outbox).filter((f) => f.endsWith('.eml'))).toHaveLength(before + 1);
  });

  it('text decomposed (NFD, as Mac exports write it) is the same text: stored composed, unchanged after', async () => {
    const composed = 'externalId,email,firstName,lastName\nN-1,n1@example.com,Seán,Núñez\n';
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    expect((await run({}, decomposed)).summary).toMatchObject({ created: 1 });
    const [user] = await users();
    expect([user!.profile.firstName, user!.profile.lastName]).toEqual(['Seán', 'Núñez']);
    expect(user!.profile.firstName).toBe('Seán'.normalize('NFC'));
    for (const text of [composed, decomposed]) {
      expect((await run({ dryRun: true }, text)).summary).toMatchObject({
        unchanged: 1,
        updated: 0,
      });
    }
  });

  it('--ignore-unknown skipping a column that looks like who is active says so, naming the flag', async () => {
    const warnings: string[] = [];
    const file = tempCsv(
      'externalId,email,Worker Status\nW-1,w1@example.com,Active\nW-2,w2@example.com,Terminated\n',
    );
    await importCsv(
      client,
      { file, ignoreUnknown: true, dryRun: true },
      { onWarning: (w) => warnings.push(w) },
    );
    expect(warnings).toContain(
      `${file}: column 'Worker Status' looks like who is active and is skipped (--ignore-unknown): leavers are imported like everyone else; read it with --status-column 'Worker Status' --active-values <values meaning active>`,
    );
  });

  it('stops at an auth failure instead of failing every row', async () => {
    const readOnly = createApiClient({
      baseUrl: `${server.url}/api`,
      token: await server.token({ scopes: ['users:read'] }),
    });
    try {
      await expect(
        importCsv(readOnly, { file: tempCsv(PEOPLE), concurrency: 1 }),
      ).rejects.toMatchObject({ status: 401 });
    } finally {
      await readOnly.close();
    }
  });

  it('--resume skips rows the report marks done', async () => {
    const report = tempCsv(
      'row,line,key,action,id,status,error\n1,2,E-1,create,x,ok,\n2,3,E-2,create,,failed,boom\n',
      'resume.csv',
    );
    const result = await run({ resume: report }, PEOPLE);
    expect(result.summary).toEqual({
      created: 2,
      updated: 0,
      unchanged: 0,
      deactivated: 0,
      failed: 0,
      rows: 3,
      invitations: 0,
      skipped: 1,
    });
    expect((await users()).map((u) => u.externalId).sort()).toEqual(['E-2', 'E-3']);
    // The report is continued: now every row is done, and each is in it once, as it ended (row
    // 2's failed line gave way to its create), in the order the rows first appear.
    expect(
      [...(await import('../../src/import/report.js')).readDone(report).keys()].sort(),
    ).toEqual([1, 2, 3]);
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('row,line,key,action,id,status,error');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 4).concat(l.split(',')[5]!))).toEqual([
      ['1', '2', 'E-1', 'create', 'ok'],
      ['2', '3', 'E-2', 'create', 'ok'],
      ['3', '4', 'E-3', 'create', 'ok'],
    ]);
  });
  it('--resume after a kill cut the last line short: the fragment goes, no finished row is lost', async () => {
    const report = tempCsv(
      'row,line,key,action,id,status,error\n1,2,E-1,create,x,ok,\n2,3,E-2,create,,failed,boom\n1',
      'cut.csv',
    );
    expect((await run({ resume: report }, PEOPLE)).summary).toMatchObject({
      skipped: 1,
      created: 2,
    });
    const lines = readFileSync(report, 'utf8').split('\n');
    expect(lines.slice(1, 4).map((l) => l.split(',').slice(0, 6).join(','))).toEqual([
      '1,2,E-1,create,x,ok',
      expect.stringMatching(/^2,3,E-2,create,\w+,ok$/),
      expect.stringMatching(/^3,4,E-3,create,\w+,ok$/),
    ]);
    expect(lines.slice(4)).toEqual(['']);
  });

  it('--resume with another --report writes a complete report there', async () => {
    const old = tempCsv('row,line,key,action,id,status,error\n1,2,E-1,create,u1,ok,\n', 'old.csv');
    const report = tempCsv('', 'new-report.csv');
    await run({ resume: old, report }, PEOPLE);
    const rows = readFileSync(report, 'utf8').trim().split('\n').slice(1);
    expect(rows.map((r) => r.split(',').slice(0, 4).join(',')).sort()).toEqual([
      '1,2,E-1,create',
      '2,3,E-2,create',
      '3,4,E-3,create',
    ]);
    expect(readFileSync(old, 'utf8').trim().split('\n')).toHaveLength(2); // left alone
  });

  it('a dry run refuses to write its plan over the --resume report', async () => {
    const done = tempCsv(
      'row,line,key,action,id,status,error\n1,2,E-1,create,x,created,\n',
      'done.csv',
    );
    const before = readFileSync(done, 'utf8');
    await expect(run({ dryRun: true, report: done, resume: done }, PEOPLE)).rejects.toThrow(
      /overwrite the --resume report/,
    );
    expect(readFileSync(done, 'utf8')).toBe(before);
  });

  it('a dry run with --report writes the plan, and changes nothing', async () => {
    const report = tempCsv('', 'plan-report.csv');
    const result = await run({ dryRun: true, report }, `${PEOPLE}E-4,bad,Dan,Doe,IT\n`);
    expect(result.summary).toMatchObject({ created: 3, failed: 1 });
    expect(result.failures.map((f) => f.line)).toEqual([5]);
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    expect(lines.slice(1).map((l) => l.split(',').slice(3, 6).join(','))).toEqual([
      'create,,planned',
      'create,,planned',
      'create,,planned',
      'error,,planned',
    ]);
    expect(await users()).toEqual([]);
  });
});

describe('--sync', () => {
  const roster = (n: number) =>
    `externalId,email\n${Array.from({ length: n }, (_, i) => `S-${i},s${i}@example.com`).join('\n')}\n`;

  it('deactivates users absent from the file, within the limit', async () => {
    await run({}, roster(20));
    const result = await run({ sync: true }, roster(18));
    expect(result.plan.deactivate.map((u) => valuesOf(u).externalId).sort()).toEqual([
      'S-18',
      'S-19',
    ]);
    expect(result.summary).toMatchObject({ unchanged: 18, deactivated: 2 });
    const statuses = Object.fromEntries((await users()).map((u) => [u.externalId, u.status]));
    expect([statuses['S-18'], statuses['S-19'], statuses['S-0']]).toEqual([
      'deactivated',
      'deactivated',
      'pending',
    ]);
    // Back in the file: reactivated.
    const back = await run({ sync: true }, roster(20));
    expect(back.summary).toMatchObject({ updated: 2, unchanged: 18, deactivated: 0 });
  });

  it('refuses beyond --max-deactivate and changes nothing', async () => {
    await run({}, roster(20));
    const file = tempCsv(`${roster(5)}NEW-1,new@example.com\n`);
    await expect(importCsv(client, { file, sync: true, sendMail: false })).rejects.toThrow(
      /--sync would deactivate 15 users \(75\.0% of 20\), more than --max-deactivate 10% allows \(2\); nothing was changed/,
    );
    await expect(
      importCsv(client, { file, sync: true, maxDeactivate: { count: 14 } }),
    ).rejects.toThrow(/more than --max-deactivate 14/);
    const all = await users();
    expect(all).toHaveLength(20);
    expect(all.every((u) => u.status === 'pending')).toBe(true);
    const dry = await importCsv(client, { file, sync: true, dryRun: true });
    expect(dry.refusal?.message).toMatch(/would deactivate 15/);
    const allowed = await importCsv(client, {
      file,
      sync: true,
      maxDeactivate: { percent: 75 },
      sendMail: false,
    });
    expect(allowed.summary).toMatchObject({ created: 1, unchanged: 5, deactivated: 15 });
  });
});

describe('export', () => {
  it('writes the import columns, so export → import changes nothing', async () => {
    await run(
      {},
      'externalId,email,userName,firstName,lastName,role,locale,location,profile.costCenter\n' +
        'R-1,r1@example.com,r.one,"Ann ""Nan""","Lee, Jr.",admin,de_DE,"Floor 2, Room 7",CC-1\n' +
        'R-2,r2@example.com,,Bob,,reader,,,\n',
    );
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const result = await exportUsers(client, { out });
    expect(result).toEqual({ users: 2, withoutExternalId: 0, withoutEmail: 0 });
    const text = Buffer.concat(chunks).toString();
    expect(text.split('\n')[0]).toBe([...EXPORT_COLUMNS, 'profile.costCenter'].join(','));
    const again = await run({}, text);
    expect(again.summary).toMatchObject({ unchanged: 2, created: 0, updated: 0, failed: 0 });
    const withSync = await run({ sync: true }, text);
    expect(withSync.summary).toMatchObject({ unchanged: 2, deactivated: 0 });
  });

  it('sorted on disk beyond a run, it writes the bytes it writes from memory', async () => {
    // Ties (no externalId, then no email), case and accents: every rule of the export's order.
    const made: [string | null, string | null, string, string?][] = [
      [null, 'z@example.com', 'zoe'],
      ['b-2', 'b2@example.com', 'bea', 'CC-2'],
      ['B-1', null, 'bo'],
      [null, null, 'ann'],
      ['é-1', 'e@example.com', 'eve'],
      [null, 'A@example.com', 'al', 'CC-1'],
      ['a-1', 'a1@example.com', 'ann.a'],
      [null, null, 'cy'],
    ];
    for (const [externalId, email, userName, costCenter] of made) {
      await client.createUser({
        ...(externalId ? { externalId } : {}),
        ...(email ? { email } : {}),
        userName,
        profile: { firstName: `${userName}, "${userName}"`, ...(costCenter ? { costCenter } : {}) },
        sendMail: false,
      });
    }
    const exported = async (runRows?: number) => {
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      const result = await exportUsers(client, { out, runRows });
      return { result, text: Buffer.concat(chunks).toString() };
    };
    const inMemory = await exported();
    expect(inMemory.result).toEqual({ users: 8, withoutExternalId: 4, withoutEmail: 3 });
    expect(inMemory.text.split('\n').length).toBe(10);
    for (const runRows of [1, 2, 3]) expect(await exported(runRows)).toEqual(inMemory);
  });

  it('formula-like values leave with a leading quote and come back unchanged', async () => {
    const values = ['=SUM(A1:A2)', '@cmd', '+cmd|calc', '-x', "'s-Hertogenbosch", '+49 89 1234-0'];
    for (const [i, v] of values.entries()) {
      await client.createUser({
        email: `f${i}@example.com`,
        externalId: `F-${i}`,
        profile: { position: v },
        sendMail: false,
      });
    }
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await exportUsers(client, { out });
    const text = Buffer.concat(chunks).toString();
    expect(text).toContain(",'=SUM(A1:A2),");
    expect(text).toContain(",'@cmd,");
    expect(text).toContain(",'+cmd|calc,");
    expect(text).toContain(",''s-Hertogenbosch,");
    expect(text).toContain(',+49 89 1234-0,');
    const again = await run({}, text);
    expect(again.summary).toMatchObject({ unchanged: values.length, updated: 0, failed: 0 });
    const stored = await Promise.all(values.map((_, i) => client.getUser(`F-${i}`)));
    expect(stored.map((u) => u.profile.position)).toEqual(values);
  });
});

describe('an interrupted import', () => {
  it('counts what was applied and what remains, never a row it did not reach as unchanged', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => `E-${i},p${i}@example.com,P${i},Sales`);
    const csv = (changed: number[]) =>
      `externalId,email,firstName,department\n${rows
        .map((r, i) => (changed.includes(i) ? r.replace('Sales', 'IT') : r))
        .join('\n')}\n`;
    await run({}, csv([]));
    // Rows 2 and 6 change; Ctrl-C as the first update completes: row 6 is never sent.
    const controller = new AbortController();
    const interrupting = new Proxy(client, {
      get(target, key, receiver) {
        if (key !== 'updateUser') return Reflect.get(target, key, receiver);
        return async (...args: Parameters<ApiClient['updateUser']>) => {
          const user = await target.updateUser(...args);
          controller.abort(new Error('interrupted'));
          return user;
        };
      },
    });
    const result = await importCsv(interrupting, {
      file: tempCsv(csv([2, 6])),
      sendMail: false,
      concurrency: 1,
      signal: controller.signal,
    });
    expect(result.interrupted).toBe(true);
    // Rows 0 and 1 were reached unchanged, row 2 updated; rows 3–9 were never reached.
    expect(result.summary).toMatchObject({
      created: 0,
      updated: 1,
      unchanged: 2,
      failed: 0,
      rows: 10,
      remaining: 7,
    });
  });
});

describe('an export whose service sent lone surrogates (JSON escapes no text can hold)', () => {
  it('orders them the same whether a row was held or read back from a run file', async () => {
    // The same externalId twice: a stable sort keeps them as they came, the first spilled to a
    // run file (runRows 2), the second still held.
    const users = [
      { id: 'u0', externalId: 'A', profile: {} },
      { id: 'u1', externalId: '\ud800', profile: { firstName: 'first' } },
      { id: 'u2', externalId: '\ud800', profile: { firstName: 'second' } },
    ];
    const fake = {
      async *iterateUsers() {
        yield* users;
      },
    } as unknown as ApiClient;
    const exported = async (runRows?: number) => {
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      await exportUsers(fake, { out, runRows });
      return Buffer.concat(chunks).toString();
    };
    const inMemory = await exported();
    for (const runRows of [1, 2]) expect(await exported(runRows)).toBe(inMemory);
  });
});

describe('an interrupted export', () => {
  it('stops with the reason it was given and leaves no sort runs behind', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'export-interrupted-'));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    try {
      const controller = new AbortController();
      const reason = new Error('interrupted');
      const fake = {
        async *iterateUsers() {
          for (let i = 0; i < 5; i++) {
            // Ctrl-C after three users, with two runs already on disk (runRows 1).
            if (i === 3) controller.abort(reason);
            yield { id: `u${i}`, externalId: `E-${i}`, email: null, profile: {} };
          }
        },
      } as unknown as ApiClient;
      const out = new PassThrough();
      await expect(exportUsers(fake, { out, runRows: 1, signal: controller.signal })).rejects.toBe(
        reason,
      );
      expect(readdirSync(temp)).toEqual([]);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      rmSync(temp, { recursive: true, force: true });
    }
  });
});

describe('export against a service that documents only name sort keys', () => {
  it('asks with the default sort and orders by externalId, then email, itself', async () => {
    const asked: unknown[] = [];
    const users = [
      { externalId: 'B-2', email: 'b@example.com' },
      { externalId: null, email: 'z@example.com' },
      { externalId: 'A-1', email: 'a@example.com' },
      { externalId: null, email: 'c@example.com' },
    ].map((u, i) => ({
      id: `65f00000000000000000000${i}`,
      status: 'activated',
      role: null,
      externalId: u.externalId,
      email: { value: u.email, source: 'system' },
      userName: null,
      config: { locale: null },
      profile: {},
    }));
    const fake = {
      async *iterateUsers(params: unknown) {
        asked.push(params);
        yield* users;
      },
    } as unknown as ApiClient;
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await exportUsers(fake, { out });
    expect(asked).toEqual([{ status: ['activated', 'pending'] }]);
    const emails = Buffer.concat(chunks)
      .toString()
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[1]);
    expect(emails).toEqual(['c@example.com', 'z@example.com', 'a@example.com', 'b@example.com']);
  });
});
