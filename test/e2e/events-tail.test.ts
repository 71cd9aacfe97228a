/**
 * The spawned journey of `roster events tail` (the wiring: the built CLI, its long polls, its
 * signal handling): it prints each change as it happens, rides out a service restart without a
 * gap or a repeat, and on Ctrl-C prints the cursor `--after` resumes from and exits 130.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { type Served, serve } from '../helpers/e2e.js';
import { jsonBody } from '../helpers/server.js';

let srv: Served;
beforeAll(async () => {
  srv = await serve();
});
afterAll(() => srv.close());

const create = (email: string) =>
  srv.req('POST', '/api/users', jsonBody({ email, sendMail: false }));

test('events tail: lines as changes happen, through a restart, Ctrl-C names --after', async () => {
  await create('before-tail@example.com');
  // Where the log ends now: tail goes on from there (as it would from a Ctrl-C's cursor).
  const start = (await srv.req('GET', '/api/events?limit=1000')).json.next;
  const tail = srv.start(['events', 'tail', '--after', start, '-o', 'ndjson']);
  const lines = (): { target: { email?: string } }[] =>
    tail
      .lines('stdout')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  const seen = (n: number) => tail.waitFor(() => lines().length >= n, 'stdout');
  const first = await create('t1@example.com');
  expect(first.status).toBe(201);
  await seen(1);
  // The service goes away and comes back on the same port and data: tail retries, then goes on.
  const port = new URL(srv.url).port;
  await srv.app!.close(100);
  const again = await createApp({
    store: srv.store,
    config: { dataDir: srv.dataDir, vendor: 'service', maxUploadBytes: 1 << 20 },
  });
  await again.listen(Number(port));
  await create('t2@example.com');
  await create('t3@example.com');
  await seen(3);
  tail.kill('SIGINT');
  const done = await tail.done;
  expect(done.exitCode, done.stderr).toBe(130);
  // Each change after the start once, in order: none lost to the restart, none repeated.
  expect(lines().map((e) => e.target.email)).toEqual([
    't1@example.com',
    't2@example.com',
    't3@example.com',
  ]);
  // The outage said once, and its end, by the tail: not a line per retry of each poll.
  expect(done.stderr).not.toMatch(/retrying GET/);
  expect(done.stderr.match(/the service does not answer/g), done.stderr).toHaveLength(1);
  expect(done.stderr).toMatch(/the service answers again; following on/);
  const cursor = /resume with: roster events tail --after (\S+)/.exec(done.stderr)?.[1];
  expect(cursor, done.stderr).toBeDefined();
  // That cursor continues after the last event shown.
  await create('t4@example.com');
  const rest = await srv.run(['events', 'list', '--after', cursor!, '-o', 'json']);
  expect(JSON.parse(rest.stdout).map((e: any) => e.target.email)).toEqual(['t4@example.com']);

  // --since starts that far back, not at the log's end: what happened in the last hour first.
  const since = srv.start(['events', 'tail', '--since', '1h', '-o', 'ndjson']);
  await since.waitFor('t4@example.com', 'stdout');
  since.kill('SIGINT');
  const users = (await since.done).stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'user.created')
    .map((e) => e.target.email);
  expect(users).toEqual([
    'before-tail@example.com',
    't1@example.com',
    't2@example.com',
    't3@example.com',
    't4@example.com',
  ]);
  await again.close(100);
});
