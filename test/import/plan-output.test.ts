/**
 * A dry run's plan, whole, for a program (issue "import you can trust", item 3): the CLI's
 * `run()` in-process against a real server on a real port.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planWriter } from '../../src/cli/commands/users/import/plan-output.js';
import type { IO } from '../../src/cli/context.js';
import {
  FORMATS,
  type Format,
  formatterOf,
  forPeople,
} from '../../src/cli/output/formats/index.js';
import { type ApiClient, createApiClient } from '../../src/client/index.js';
import { READERS } from '../helpers/format-readers.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { importViaCli, tempCsv } from './helpers.js';

let server: TestServer;
let client: ApiClient;
let robert: string;
const dir = mkdtempSync(join(tmpdir(), 'roster-plan-out-'));
beforeAll(async () => {
  server = await startServer();
  client = createApiClient({ baseUrl: `${server.url}/api`, token: server.adminToken });
  robert = (
    await client.createUser({
      externalId: 'E-2',
      email: 'bob@example.com',
      profile: { firstName: 'Robert' },
      sendMail: false,
    })
  ).user.id;
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const FILE = tempCsv(
  'externalId,email,firstName,secret\nE-1,ann@example.com,Ann,s3cret-pass\nE-2,bob@example.com,Bob,\nE-3,bad,Cem,\n',
);

async function dryRun(...args: string[]) {
  return dryRunOf(FILE, ...args);
}

const dryRunOf = (file: string, ...args: string[]) =>
  importViaCli(server, join(dir, 'config'), [file, '--dry-run', ...args]);

const ROWS = () => [
  {
    line: 2,
    key: 'E-1',
    action: 'create',
    changes: {
      externalId: { from: null, to: 'E-1' },
      email: { from: null, to: 'ann@example.com' },
      firstName: { from: null, to: 'Ann' },
      secret: { from: null, to: '***' }, // never a secret in the plan
    },
  },
  {
    line: 3,
    key: 'E-2',
    action: 'update',
    id: robert,
    changes: { firstName: { from: 'Robert', to: 'Bob' } },
  },
  { line: 4, key: 'E-3', action: 'error', error: "email 'bad' is not a valid email address" },
];

describe('a dry run for programs shows every row and every change', () => {
  it('-o ndjson: one object per row, then the summary', async () => {
    const { code, out } = await dryRun('-o', 'ndjson');
    expect(code).toBe(5); // a row fails the checks
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.slice(0, 3)).toEqual(ROWS());
    expect(lines[3]).toEqual({
      summary: expect.objectContaining({ created: 1, updated: 1, failed: 1, rows: 3 }),
    });
  });

  it('-o json: {rows, summary}', async () => {
    const { out } = await dryRun('-o', 'json');
    const plan = JSON.parse(out);
    expect(plan.rows).toEqual(ROWS());
    // The one create has a secret: created activated, it gets no sign-up invitation.
    expect(plan.summary).toMatchObject({ created: 1, updated: 1, failed: 1, invitations: 0 });
  });

  it("a leaver with --sync: the status it is deactivated from is the user's own (pending here)", async () => {
    const leavers = tempCsv('externalId,email,Status\nE-2,bob@example.com,Terminated\n');
    const r = await dryRunOf(
      leavers,
      ...['--sync', '--status-column', 'Status', '--active-values', 'Active', '-o', 'json'],
    );
    expect(JSON.parse(r.out).rows, r.err).toContainEqual(
      expect.objectContaining({
        key: 'E-2',
        action: 'deactivate',
        changes: { status: { from: 'pending', to: 'deactivated' } },
      }),
    );
  });

  it('-o json of a file without rows is still one JSON object', async () => {
    const { code, out } = await dryRunOf(tempCsv('externalId,email\n'), '-o', 'json');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ rows: [], summary: expect.objectContaining({ rows: 0 }) });
  });

  it('-o csv: one line per change', async () => {
    const { out } = await dryRun('-o', 'csv');
    expect(out.trim().split('\n')).toEqual([
      'line,key,action,id,field,from,to,error',
      '2,E-1,create,,externalId,,E-1,',
      '2,E-1,create,,email,,ann@example.com,',
      '2,E-1,create,,firstName,,Ann,',
      '2,E-1,create,,secret,,***,',
      `3,E-2,update,${robert},firstName,Robert,Bob,`,
      "4,E-3,error,,,,,email 'bad' is not a valid email address",
    ]);
  });

  it('--report carries the changes', async () => {
    const report = join(dir, 'plan.csv');
    await dryRun('--report', report, '-o', 'json');
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('row,line,key,action,id,status,error,invitation,changes');
    expect(lines[2]).toBe(`2,3,E-2,update,${robert},planned,,,firstName: Robert → Bob`);
  });
});

describe('the plan writer', () => {
  const rows = Array.from({ length: 3000 }, (_, i) => ({
    line: i + 2,
    key: `E-${i}`,
    action: 'update' as const,
    id: `id-${i}`,
    changes: { department: { from: 'Sales', to: 'Sales Ops' } },
  }));

  /** A slow stdout (a small buffer, drained later) that records each write it gets. */
  function slowStdout() {
    const writes: string[] = [];
    const stdout = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        writes.push(chunk.toString());
        setImmediate(done);
      },
    });
    return { io: { stdout } as unknown as IO, writes };
  }

  /** What a 3,000-row plan holds, read back; the formats without one are only read. */
  const holds: Partial<Record<Format, (text: string) => void>> = {
    ndjson(text) {
      const lines = READERS.ndjson(text) as unknown[];
      expect(lines.slice(0, -1)).toEqual(rows);
      expect(lines.at(-1)).toEqual({ summary: expect.objectContaining({ updated: 3000 }) });
    },
    json: (text) => expect((READERS.json(text) as { rows: unknown }).rows).toEqual(rows),
    csv(text) {
      const lines = text.trim().split('\n');
      expect(lines).toHaveLength(3001);
      expect(lines[3000]).toBe('3001,E-2999,update,id-2999,department,Sales,Sales Ops,');
    },
  };

  // Every format a plan streams in: those for programs, as the registry has them.
  it.each(FORMATS.filter((f) => !forPeople(f) && !formatterOf(f).idsOnly))(
    '-o %s: the rows reach stdout in batches, whole and in order',
    async (format) => {
      const { io, writes } = slowStdout();
      const writer = (await planWriter(io, format))!;
      for (const row of rows) await writer.write(row);
      await writer.end({
        created: 0,
        updated: 3000,
        unchanged: 0,
        deactivated: 0,
        failed: 0,
        rows: 3000,
      });
      const text = writes.join('');
      // A write per row was a write(2) per row: a third of a 20,000-row dry run.
      expect(writes.length).toBeLessThan(rows.length / 20);
      READERS[format](text);
      holds[format]?.(text);
    },
  );
});
