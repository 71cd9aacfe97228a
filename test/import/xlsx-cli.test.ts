/**
 * `users import` of .xlsx and `users export` to .xlsx through the CLI's run() against a real
 * server on a real port: each good fixture's plan equals its CSV twin's (fixtures/xlsx/make.py,
 * openpyxl); each bad one exits 2 naming the file, with nothing written (no user, no report);
 * an export opens as a table (frozen header, autofilter, text cells, no formula) and imports
 * again as a no-op. Each test in its own branch (emails are unique per tenant).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import { exportToFile } from '../../src/import/export.js';
import { readZipDirectory } from '../../src/import/zip-directory.js';
import { cliAgainst } from '../helpers/cli-run.js';
import { scratch } from '../helpers/scratch.js';
import { startServer, type TestServer } from '../helpers/server.js';

const XLSX = join(import.meta.dirname, '..', '..', 'fixtures', 'xlsx');
const at = (name: string) => join(XLSX, name);
const files = scratch();
let server: TestServer;
let branches = 0;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
  await files.cleanup();
});

async function inBranch() {
  const token = await server.token({ branch: `xlsx-${++branches}` });
  return { token, run: cliAgainst(server, token, files.temp('roster-xlsx-config-')) };
}

/** The plan's rows without their line numbers (a sheet's row is not the CSV's line). */
const planOf = (ndjson: string) =>
  ndjson
    .trim()
    .split('\n')
    .map((l) => {
      const { line: _line, ...rest } = JSON.parse(l) as Record<string, unknown>;
      return rest;
    });

/** A part of a zip, inflated (the test's own reading, not the code under test's). */
async function part(file: string, name: string): Promise<string> {
  const entry = (await readZipDirectory(file, 100)).find((e) => e.name === name)!;
  const bytes = readFileSync(file);
  const start =
    entry.offset +
    30 +
    bytes.readUInt16LE(entry.offset + 26) +
    bytes.readUInt16LE(entry.offset + 28);
  const data = bytes.subarray(start, start + entry.compressed);
  return (entry.method === 8 ? inflateRawSync(data) : data).toString('utf8');
}

describe('a workbook plans as its CSV does', () => {
  it.each([
    ['german', []],
    [
      'workday-report',
      ['--map', 'Legal First Name=firstName', '--map', 'Legal Last Name=lastName'],
    ],
    ['leading-zeros', ['--map', 'position=position']],
  ])('%s', async (name, args) => {
    const { run } = await inBranch();
    const dry = ['users', 'import', '--dry-run', '-o', 'ndjson', ...args];
    const book = await run([
      ...dry,
      at(`${name}.xlsx`),
      ...(name === 'workday-report' ? ['--header-row', '4'] : []),
    ]);
    const csv = await run([...dry, at(`${name}.csv`)]);
    expect(book.stderr).toBe(csv.stderr);
    expect(csv.code).toBe(0);
    expect(book.code).toBe(0);
    expect(planOf(book.stdout)).toEqual(planOf(csv.stdout));
    expect(planOf(book.stdout).at(-1)).toMatchObject({ summary: { created: 3 } });
  });

  it('a formula without a saved value fails its row (exit 5), the other rows go in', async () => {
    const { run } = await inBranch();
    const r = await run([
      'users',
      'import',
      at('formula-no-value.xlsx'),
      '--no-send-mail',
      '-o',
      'json',
    ]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/line 3.*cell C3 is a formula without a saved value/);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 1, failed: 1 });
  });
});

describe('a saved plan and a run record bind to the workbook', () => {
  it("--save-plan keeps --header-row and the SHA-256 of the workbook's bytes; --plan applies it", async () => {
    const { run } = await inBranch();
    const dir = files.temp('roster-xlsx-plan-');
    const plan = join(dir, 'plan.json');
    const args = ['--header-row', '4', '--map', 'Legal First Name=firstName'];
    const book = at('workday-report.xlsx');
    const dry = await run([
      'users',
      'import',
      book,
      ...args,
      '--ignore-unknown',
      '--dry-run',
      '--save-plan',
      plan,
      '-o',
      'json',
    ]);
    expect(dry.stderr).not.toContain('error');
    expect(dry.code).toBe(0);
    const saved = JSON.parse(readFileSync(plan, 'utf8'));
    expect(saved.options).toMatchObject({ headerRow: 4 });
    expect(saved.input.sha256).toBe(createHash('sha256').update(readFileSync(book)).digest('hex'));
    const applied = await run(['users', 'import', '--plan', plan, '-o', 'json']);
    expect(applied.stderr).not.toContain('error');
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ created: 3 });
  });
});

describe('bad input: exit 2, the file named with what to do, nothing written', () => {
  it.each([
    ['encrypted.xlsx', 'password-protected'],
    ['legacy.xlsx', 'save it as .xlsx or CSV'],
    ['html-named.xlsx', 'is an HTML page'],
    ['zip-bomb.xlsx', 'zip bomb'],
    ['xxe.xlsx', 'DOCTYPE'],
    ['wide.xlsx', 'beyond column XFD'],
    ['merged-headers.xlsx', 'merged cells (C1:D1)'],
    ['duplicate-headers.xlsx', 'several columns map to the same field: email'],
    [
      'sheets.xlsx',
      "its sheets: 'Lookup' (hidden), 'Staff', 'Contractors'",
      ['--sheet', 'Payroll'],
    ],
  ] as [string, string, string[]?][])('%s', async (name, message, args = []) => {
    const { run } = await inBranch();
    const report = join(files.temp('roster-xlsx-report-'), 'report.csv');
    const r = await run(['users', 'import', at(name), '--report', report, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(at(name));
    expect(r.stderr).toContain(message);
    expect(existsSync(report)).toBe(false);
    const list = await run(['users', 'list', '--all', '--status', 'all', '-o', 'json']);
    expect(JSON.parse(list.stdout)).toEqual([]);
  });
});

describe('users export to .xlsx', () => {
  it('a table Excel opens as one: frozen header, autofilter, text cells, no formula; import again is a no-op', async () => {
    const { run } = await inBranch();
    const dir = files.temp('roster-xlsx-export-');
    const people = join(dir, 'people.csv');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      people,
      'externalId,email,firstName,lastName,position,phoneNumber,profile.startDate,profile.postalCode\n' +
        '00777,ann@example.com,Ann,Lee,"\'=HYPERLINK(""http://x"")",4915112345678,2021-03-01,01067\n' +
        'E-2,bob@example.com,Bob,Stone,Dev,,,\n',
    );
    const imported = await run(['users', 'import', people, '--no-send-mail']);
    expect(imported.stderr).not.toContain('error');
    expect(imported.code).toBe(0);
    const book = join(dir, 'people.xlsx');
    const exported = await run(['users', 'export', '--to', book]);
    expect(exported.stderr).toContain(`exported 2 users to ${book}`);
    expect(readFileSync(book).subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));

    const sheet = await part(book, 'xl/worksheets/sheet1.xml');
    expect(sheet).toMatch(/<pane [^>]*ySplit="1"[^>]*state="frozen"/);
    expect(sheet).toMatch(/<autoFilter ref="A1:[A-Z]+1"\/>/);
    expect(sheet).not.toContain('<f>');
    expect(sheet).toContain('=HYPERLINK(&quot;http://x&quot;)');
    expect(sheet).toMatch(/<col [^>]*width="\d+/);
    // An empty value is no cell (Bob's row), not an empty styled one: the sheet stays small.
    const bob = /<row r="3"[^>]*>(.*?)<\/row>/.exec(sheet)?.[1] ?? '';
    expect(bob.match(/<c /g)).toHaveLength(5); // E-2, bob@example.com, Bob, Stone, Dev
    // Text cells: the externalId's and the phone number's digits as written, never a number.
    expect(sheet).toMatch(/<c r="A2"[^>]*t="str"[^>]*><v>00777<\/v>/);
    expect(sheet).toMatch(/t="str"[^>]*><v>4915112345678<\/v>/);
    expect(sheet).toMatch(/t="str"[^>]*><v>01067<\/v>/);
    // The custom field's ISO date is a date cell: Excel's serial day number, not text.
    expect(sheet).toMatch(/<c r="[A-Z]+2" s="\d+"><v>44256<\/v>/);

    const again = await run(['users', 'import', book, '--dry-run', '-o', 'json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      summary: { created: 0, updated: 0, unchanged: 2, failed: 0 },
    });
  });

  it('-o xlsx without --to, and the CSV-only flags, are refused', async () => {
    const { run } = await inBranch();
    expect((await run(['users', 'export', '-o', 'xlsx'])).stderr).toContain(
      'give it with --to people.xlsx',
    );
    const dir = files.temp('roster-xlsx-export-');
    const r = await run(['users', 'export', '--to', join(dir, 'a.xlsx'), '--delimiter', ';']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--delimiter is for CSV');
  });

  it("more users than a sheet's rows: refused naming the count, no file written", async () => {
    const { run, token } = await inBranch();
    const dir = files.temp('roster-xlsx-export-');
    const people = join(dir, 'people.csv');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      people,
      'externalId,email\nL-1,l1@example.com\nL-2,l2@example.com\nL-3,l3@example.com\n',
    );
    expect((await run(['users', 'import', people, '--no-send-mail'])).code).toBe(0);
    const client = createApiClient({ baseUrl: `${server.url}/api`, token });
    const book = join(dir, 'big.xlsx');
    try {
      await expect(exportToFile(client, book, { format: 'xlsx', maxRows: 3 })).rejects.toThrow(
        "3 users do not fit in one .xlsx sheet (Excel's limit is 3 rows, the header included)",
      );
    } finally {
      await client.close();
    }
    expect(existsSync(book)).toBe(false);
  });
});
