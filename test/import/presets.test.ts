/**
 * Import presets against the real app in-process: each format's fixture (fixtures/csv/presets,
 * built from the vendors' documented column names) imports with only its preset; leavers are
 * never created, and --sync deactivates an existing one.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from '../../src/client/index.js';
import { resolveHeader } from '../../src/import/columns.js';
import { detectPreset, PRESETS, type PresetName } from '../../src/import/presets.js';
import { type ImportOptions, importCsv } from '../../src/import/run.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { fixture, readAll, tempCsv } from './helpers.js';

let server: TestServer;
let client: ApiClient;

beforeEach(async () => {
  server = await startServer();
  client = createApiClient({ baseUrl: `${server.url}/api`, token: server.adminToken });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

const run = (opts: Omit<ImportOptions, 'file'> & { file: string }, warnings: string[] = []) =>
  importCsv(client, { sendMail: false, ...opts }, { onWarning: (w) => warnings.push(w) });

async function users() {
  const all = [];
  for await (const u of client.iterateUsers({ status: ['activated', 'pending', 'deactivated'] }))
    all.push(u);
  return all;
}
const byEmail = async () => new Map((await users()).map((u) => [u.email?.value ?? '', u]));

/** Per format: the users it creates (email → fields) and its leavers' emails. */
const EXPECTED: Record<
  PresetName,
  { created: Record<string, Record<string, unknown>>; leavers: string[]; leaverId?: string }
> = {
  gam: {
    created: {
      'ada.lovelace@example.com': {
        externalId: 'G-100',
        firstName: 'Ada',
        lastName: 'Lovelace',
        position: 'Engineer',
        department: 'Engineering',
        location: 'Berlin',
        phoneNumber: '+49 30 1234567',
      },
      'alan.turing@example.com': { externalId: 'G-101', department: 'Research' },
      'grace.hopper@example.com': { firstName: 'Grace', phoneNumber: '+1 212 555 0100' },
    },
    leavers: ['ken.thompson@example.com', 'dennis.ritchie@example.com'],
  },
  entra: {
    created: {
      'adele.vance@contoso.example': {
        externalId: 'E-1001',
        firstName: 'Adele',
        lastName: 'Vance',
        position: 'Retail Manager',
        department: 'Retail',
        location: '18/2111',
        phoneNumber: '+1 425 555 0109', // telephoneNumber before mobilePhone
      },
      // no mail: the userPrincipalName; no telephoneNumber: the mobilePhone
      'alex.wilber@contoso.example': { externalId: 'E-1002', phoneNumber: '+1 858 555 0110' },
      'diego@contoso.example': { externalId: 'E-1003', lastName: 'Siciliani' }, // mail first
    },
    leavers: ['isaiah.langer@contoso.example'],
  },
  'entra-template': {
    created: {
      'alain@contoso.example': {
        firstName: 'Alain',
        lastName: 'Charon',
        position: 'Software Engineer',
        department: 'Engineering',
        location: 'Building 4',
        phoneNumber: '+1 425 555 0111',
      },
      'isabella@contoso.example': { phoneNumber: '+1 425 555 0112' },
    },
    leavers: ['joseph@contoso.example'],
  },
  okta: {
    created: {
      'maria.garcia@acme.example': {
        userName: 'maria.garcia@acme.example',
        externalId: 'O-501',
        firstName: 'Maria',
        position: 'Store Lead',
        department: 'Retail',
        location: 'Madrid',
        phoneNumber: '+34 91 555 0101',
      },
      'li.wei@acme.example': { userName: 'li.wei', phoneNumber: '+86 10 5555 0102' },
      'sam.okafor@acme.example': { externalId: 'O-503' },
    },
    leavers: ['tom.berg@acme.example', 'ana.silva@acme.example'],
  },
  bamboohr: {
    created: {
      'cabbott@efficientoffice.example': {
        externalId: '1',
        firstName: 'Charlotte',
        position: 'Sr. HR Administrator',
        department: 'Human Resources',
        location: 'Lindon, Utah',
        phoneNumber: '801-724-6600',
      },
      'aadams@efficientoffice.example': { externalId: '2', phoneNumber: '+44 20 7946 0002' },
      'cagluinda@efficientoffice.example': { externalId: '3' },
    },
    leavers: ['jbryan@efficientoffice.example'],
    leaverId: '4', // matched by Employee #
  },
  personio: {
    created: {
      'juergen.mueller@firma.example': {
        externalId: '1001',
        firstName: 'Jürgen',
        lastName: 'Müller',
        position: 'Filialleiter',
        department: 'Vertrieb',
        location: 'München',
      },
      'oezlem.sahin@firma.example': { firstName: 'Özlem', lastName: 'Şahin' },
      'chloe.weiss@firma.example': { location: 'Hamburg' },
    },
    leavers: ['bjoern.gross@firma.example'],
  },
};

/** A user's fields as an import names them. */
const fieldsOf = (u: Awaited<ReturnType<typeof users>>[number]) => ({
  externalId: u.externalId,
  userName: u.userName?.value,
  ...u.profile,
});

describe('presets', () => {
  it.each(Object.keys(EXPECTED) as PresetName[])(
    '%s: only --preset; leavers are not created',
    async (name) => {
      const file = fixture(`presets/${name}.csv`);
      const { created, leavers } = EXPECTED[name];
      const warnings: string[] = [];
      const first = await run({ file, preset: name }, warnings);
      expect(warnings).toEqual([]);
      expect(first.failures).toEqual([]);
      expect(first.summary).toMatchObject({
        created: Object.keys(created).length,
        failed: 0,
        leavers: leavers.length,
        deactivated: 0,
      });
      expect(first.plan.match).toBe(PRESETS[name].match);
      const now = await byEmail();
      expect([...now.keys()].sort()).toEqual(Object.keys(created).sort());
      for (const [email, fields] of Object.entries(created)) {
        expect(fieldsOf(now.get(email)!), email).toMatchObject(fields);
      }
      // The same file again changes nothing.
      const again = await run({ file, preset: name });
      expect(again.summary).toMatchObject({ created: 0, updated: 0, leavers: leavers.length });
    },
  );

  it.each(Object.keys(EXPECTED) as PresetName[])(
    '%s: an existing leaver is left alone, and deactivated with --sync',
    async (name) => {
      const file = fixture(`presets/${name}.csv`);
      const { leavers, leaverId } = EXPECTED[name];
      const leaver = leavers[0]!;
      const { user } = await client.createUser({
        email: leaver,
        ...(leaverId ? { externalId: leaverId } : {}),
        sendMail: false,
      });
      const kept = await run({ file, preset: name });
      expect(kept.summary).toMatchObject({ deactivated: 0 });
      expect(kept.plan.leavers.find((e) => e.id === user.id)).toMatchObject({
        action: 'leaver',
        id: user.id,
      });
      expect((await byEmail()).get(leaver)!.status).toBe('pending');

      const synced = await run({ file, preset: name, sync: true, maxDeactivate: { count: 1 } });
      expect(synced.failures).toEqual([]);
      expect(synced.summary).toMatchObject({ deactivated: 1, created: 0 });
      expect((await byEmail()).get(leaver)!.status).toBe('deactivated');
      // and stays so: a leaver is never reactivated by --sync
      const still = await run({ file, preset: name, sync: true });
      expect(still.summary).toMatchObject({ deactivated: 0, updated: 0 });
      expect(still.plan.leavers.find((e) => e.id === user.id)).toMatchObject({
        action: 'leaver',
        deactivated: true,
      });
      expect((await byEmail()).get(leaver)!.status).toBe('deactivated');
    },
  );

  it('suggests the preset when a header matches one', async () => {
    for (const name of Object.keys(EXPECTED) as PresetName[]) {
      const { header } = await readAll(fixture(`presets/${name}.csv`));
      expect(detectPreset(header)?.name, name).toBe(name);
      await expect(run({ file: fixture(`presets/${name}.csv`) }), name).rejects.toThrow(
        new RegExp(`looks like an? .*: try --preset ${name}$`),
      );
    }
    expect(detectPreset(['externalId', 'email', 'Vorname', 'Nachname'])).toBeUndefined();
    // Without the preset a known header still imports, with a warning (leavers are not read).
    const warnings: string[] = [];
    const csv = tempCsv('Vorname,Nachname,E-Mail,Status,Büro\nA,B,a@example.com,inaktiv,X\n');
    await expect(
      run({ file: csv, match: 'email', ignoreUnknown: true }, warnings),
    ).resolves.toBeDefined();
    expect(warnings).toEqual([
      expect.stringMatching(/column 'Status' looks like who is active and is skipped/),
      expect.stringMatching(
        /looks like a Personio .*--preset personio \(it also reads who has left\)/,
      ),
    ]);
  });

  it('the --report names each leaver row, and a dry run counts them', async () => {
    const report = tempCsv('', 'leavers-report.csv');
    const file = fixture('presets/okta.csv');
    const dry = await run({ file, preset: 'okta', dryRun: true, report });
    expect(dry.summary).toEqual({
      created: 3,
      updated: 0,
      unchanged: 0,
      deactivated: 0,
      failed: 0,
      rows: 5,
      invitations: 0,
      leavers: 2,
    });
    const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
    expect(lines.map((l) => l.split(',').slice(0, 4).join(','))).toEqual([
      '1,2,maria.garcia@acme.example,create',
      '2,3,li.wei@acme.example,create',
      '3,4,sam.okafor@acme.example,create',
      '4,5,tom.berg@acme.example,leaver',
      '5,6,ana.silva@acme.example,leaver',
    ]);
    expect(await users()).toEqual([]);
  });

  it('--map overrides a preset column; columns outside the preset are ignored', async () => {
    const file = fixture('presets/gam.csv');
    await run({ file, preset: 'gam', maps: ['id=externalId', 'organizations.0.location='] });
    const ada = (await byEmail()).get('ada.lovelace@example.com')!;
    expect(ada.externalId).toBe('104563897612345678901');
    expect(ada.profile.location ?? null).toBeNull();
    expect(ada.profile.department).toBe('Engineering');
  });

  it('--status-column with --active-values, on a file of no preset', async () => {
    const csv = tempCsv(
      'externalId,email,Status\nS-1,s1@example.com,Active\nS-2,s2@example.com,Terminated\nS-3,s3@example.com,\nS-4,s4@example.com, on leave \n',
    );
    const r = await run({
      file: csv,
      statusColumn: 'status',
      activeValues: ['Active', 'On Leave'],
    });
    expect(r.summary).toMatchObject({ created: 2, leavers: 2 });
    expect((await users()).map((u) => u.externalId).sort()).toEqual(['S-1', 'S-4']);
    expect(r.plan.leavers.map((e) => e.leaver)).toEqual(['Status=Terminated', 'Status=(empty)']);
    await expect(run({ file: csv, statusColumn: 'State', activeValues: ['x'] })).rejects.toThrow(
      /--status-column State: .* has no such column/,
    );
  });

  it('a preset whose status column is missing warns that leavers cannot be told apart', async () => {
    const warnings: string[] = [];
    const csv = tempCsv('primaryEmail,name.givenName\nx@example.com,X\n');
    const r = await run({ file: csv, preset: 'gam' }, warnings);
    expect(r.summary).toMatchObject({ created: 1 });
    expect(r.summary.leavers).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(/has no suspended or archived column: leavers cannot be told apart/),
    ]);
  });

  it('the Entra template as Excel saves it, and the classic "Download users" columns', async () => {
    const excel = tempCsv(
      'version:v1.0,,,\r\nName [displayName] Required,User name [userPrincipalName] Required,Initial password [passwordProfile] Required,Block sign in (Yes/No) [accountEnabled] Required\r\nA B,ab@contoso.example,Pass-word-1!,No\r\n',
    );
    const t = await run({ file: excel, preset: 'entra-template' });
    expect(t.summary).toMatchObject({ created: 1, leavers: 0 });
    expect(t.plan.errors).toEqual([]);
    const classic = tempCsv(
      'userPrincipalName,displayName,surname,mail,givenName,objectId,userType,jobTitle,department,accountEnabled,usageLocation,physicalDeliveryOfficeName,telephoneNumber,mobile\n' +
        'c1@contoso.example,C One,One,,C,6f1e…,Member,Clerk,Sales,TRUE,DE,Room 1,,+49 1\n' +
        'c2@contoso.example,C Two,Two,,C,7a2f…,Member,Clerk,Sales,FALSE,DE,Room 2,,\n',
    );
    const d = await run({ file: classic, preset: 'entra' });
    expect(d.summary).toMatchObject({ created: 1, leavers: 1 });
    const c1 = (await byEmail()).get('c1@contoso.example')!;
    expect(c1.profile).toMatchObject({ location: 'Room 1', phoneNumber: '+49 1' });
  });

  it('two columns for one field are ranked by the preset, not refused', () => {
    const layout = resolveHeader(['mobilePhone', 'telephoneNumber', 'mail', 'userPrincipalName'], {
      file: 'x.csv',
      preset: PRESETS.entra,
    });
    expect(layout.fields).toEqual(['phoneNumber', 'phoneNumber', 'email', 'email']);
    expect(layout.order.slice(0, 4)).toEqual([2, 3, 1, 0]);
  });
});
