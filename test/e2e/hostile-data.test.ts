/**
 * Values from the service are data, never terminal commands. The server refuses control
 * characters now, so the hostile user is written straight into the database, as an older or a
 * hostile server would hold it.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Served, serve } from '../helpers/e2e.js';

let srv: Served;
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2JEve\u202eevil\u009b31m\u007f';
beforeAll(async () => {
  srv = await serve();
  const made = await srv.run([
    'users',
    'invite',
    '--email',
    'eve@example.com',
    '--external-id',
    'eve',
    '--no-send-mail',
    '-o',
    'json',
  ]);
  expect(made.exitCode, made.stderr).toBe(0);
  const db = new Database(join(srv.dataDir, 'roster.db'));
  db.prepare("UPDATE users SET first_name = ?, position = ? WHERE external_id = 'eve'").run(
    HOSTILE,
    HOSTILE,
  );
  db.close();
});
afterAll(() => srv.close());

// biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence.
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;

test('users show and list as tables show escapes as text', async () => {
  for (const args of [
    ['users', 'show', 'eve', '-o', 'table'],
    ['users', 'list', '-o', 'table'],
  ]) {
    const r = await srv.run(args);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout, args.join(' ')).not.toMatch(RAW);
    expect(r.stdout).toContain('\\x1b]0;pwned\\x07');
  }
});

test('-o json and ndjson escape C1 controls and DEL too, and still parse to the value', async () => {
  for (const args of [
    ['users', 'show', 'eve', '-o', 'json'],
    ['users', 'list', '-o', 'ndjson'],
  ]) {
    const r = await srv.run(args);
    expect(r.stdout, args.join(' ')).not.toMatch(RAW);
    const value = args.includes('ndjson')
      ? JSON.parse(r.stdout.trim().split('\n')[0]!)
      : JSON.parse(r.stdout);
    expect(value.profile.firstName).toBe(HOSTILE);
  }
});
