/**
 * The spawned journey of `roster events tail` (the wiring: the built CLI, its long polls, its
 * signal handling): it prints each change as it happens, rides out a service restart without a
 * gap or a repeat, and on Ctrl-C prints the cursor `--after` resumes from and exits 130.
 */
import { execa } from 'execa';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { BIN, type Served, serve } from '../helpers/e2e.js';
import { eachLine } from '../helpers/lines.js';
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
  const child = execa(process.execPath, [BIN, 'events', 'tail', '--after', start, '-o', 'ndjson'], {
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...srv.env },
    extendEnv: false,
    reject: false,
  });
  const lines: { target: { email?: string } }[] = [];
  const waiters: (() => void)[] = [];
  eachLine(child.stdout!, (line) => {
    if (line) lines.push(JSON.parse(line));
    for (const w of waiters.splice(0)) w();
  });
  const seen = async (n: number) => {
    while (lines.length < n) await new Promise<void>((r) => waiters.push(r));
  };
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
  child.kill('SIGINT');
  const done = await child;
  expect(done.exitCode, String(done.stderr)).toBe(130);
  // Each change after the start once, in order: none lost to the restart, none repeated.
  expect(lines.map((e) => e.target.email)).toEqual([
    't1@example.com',
    't2@example.com',
    't3@example.com',
  ]);
  const cursor = /resume with: roster events tail --after (\S+)/.exec(String(done.stderr))?.[1];
  expect(cursor, String(done.stderr)).toBeDefined();
  // That cursor continues after the last event shown.
  await create('t4@example.com');
  const rest = await srv.run(['events', 'list', '--after', cursor!, '-o', 'json']);
  expect(JSON.parse(rest.stdout).map((e: any) => e.target.email)).toEqual(['t4@example.com']);

  // --since starts that far back, not at the log's end: what happened in the last hour first.
  const since = execa(process.execPath, [BIN, 'events', 'tail', '--since', '1h', '-o', 'ndjson'], {
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...srv.env },
    extendEnv: false,
    reject: false,
  });
  let out = '';
  await new Promise<void>((resolve) => {
    since.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('t4@example.com')) resolve();
    });
    void since.then(() => resolve());
  });
  since.kill('SIGINT');
  await since;
  const users = out
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
