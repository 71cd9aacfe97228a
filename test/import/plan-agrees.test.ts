/**
 * The dry run's promise (issue "import you can trust"): for any users the branch has and any
 * file, the plan's outcome for every row is the run's. Random existing users and CSV files from
 * small pools of keys, so that keys collide by case, by Unicode form and across rows; both runs
 * against a real server in-process (SQLite, and PostgreSQL in that project).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ApiClient, ApiError, createApiClient } from '../../src/client/index.js';
import { importCsv } from '../../src/import/run.js';
import type { MatchField } from '../../src/import/types.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { tempCsv } from './helpers.js';

let server: TestServer;
let client: ApiClient;
beforeAll(async () => {
  server = await startServer();
  client = createApiClient({ baseUrl: `${server.url}/api`, token: server.adminToken });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

// Keys that are one value to the service but not to a naive comparison, and some that aren't.
const EXTERNAL_IDS = ['E1', 'e1', 'E2', 'Jos\u00e9', 'Jose\u0301'];
const EMAILS = ['a@example.com', 'A@example.com', 'b@example.com', 'c@example.com'];
const USER_NAMES = ['ann', 'ANN', 'bob', 'Jose\u0301'];

const maybe = (pool: string[]) => fc.option(fc.constantFrom(...pool), { nil: undefined });
const person = fc.record({
  externalId: maybe(EXTERNAL_IDS),
  email: maybe(EMAILS),
  userName: maybe(USER_NAMES),
  firstName: maybe(['Ann', 'Bob']),
});
type Person = typeof person extends fc.Arbitrary<infer T> ? T : never;

async function reset() {
  for await (const u of client.iterateUsers({ status: ['activated', 'pending', 'deactivated'] })) {
    await client.deleteUser(u.id);
  }
}

async function seed(people: Person[]) {
  for (const p of people) {
    if (!p.email && !p.userName) continue;
    const body = {
      ...(p.externalId ? { externalId: p.externalId } : {}),
      ...(p.email ? { email: p.email } : {}),
      ...(p.userName ? { userName: p.userName } : {}),
      ...(p.firstName ? { profile: { firstName: p.firstName } } : {}),
      sendMail: false,
    };
    // Users that collide with an earlier one are simply not there: that is a state too.
    await client.createUser(body).catch((err) => {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
    });
  }
}

const csvOf = (rows: Person[]) =>
  `externalId,email,userName,firstName\n${rows
    .map((r) => [r.externalId, r.email, r.userName, r.firstName].map((c) => c ?? '').join(','))
    .join('\n')}\n`;

/** row → [action, failed?] from a report. */
function outcomes(report: string) {
  const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
  return new Map(
    lines.map((l) => {
      const [row, , , action, , status] = l.split(',');
      return [Number(row), [action, status === 'failed' || action === 'error']] as const;
    }),
  );
}

let n = 0;
it('for random users and files, every row of the dry run ends as in the run', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(person, { maxLength: 4 }),
      fc.array(person, { minLength: 1, maxLength: 6 }),
      fc.constantFrom<MatchField>('externalId', 'email'),
      async (existing, rows, match) => {
        await reset();
        await seed(existing);
        const file = tempCsv(csvOf(rows));
        const dry = join(server.dataDir, `dry-${++n}.csv`);
        const wet = join(server.dataDir, `run-${n}.csv`);
        await importCsv(client, { file, match, dryRun: true, report: dry, sendMail: false });
        await importCsv(client, { file, match, report: wet, sendMail: false });
        expect(outcomes(wet)).toEqual(outcomes(dry));
      },
    ),
    { numRuns: 30, seed: 2211 },
  );
});
