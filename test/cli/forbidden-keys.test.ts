/**
 * Every place the CLI turns a path or key a person (or a file) gives into a property write
 * refuses `__proto__`, `constructor` and `prototype`, in any segment and any case: a usage error
 * naming the key (exit 2), nothing sent, and this process's Object.prototype untouched. The
 * CLI's run() in-process against a real server on a real port.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forbiddenSegment, isForbiddenKey } from '../../src/contract/safe-keys.js';
import { type CliRun, cliAgainst, cliWith } from '../helpers/cli-run.js';
import { scratch } from '../helpers/scratch.js';
import { startServer, type TestServer } from '../helpers/server.js';

const dirs = scratch();

let server: TestServer;
let dir: string;
let roster: CliRun;
let id: string;
beforeEach(async () => {
  server = await startServer();
  dir = dirs.temp('roster-forbidden-keys-');
  roster = cliAgainst(server, server.adminToken, join(dir, 'config'));
  const made = await roster([
    'users',
    'invite',
    '--external-id',
    'E-1',
    '--email',
    'ann@example.com',
    '--no-send-mail',
    '-o',
    'json',
  ]);
  expect(made.code, made.stderr).toBe(0);
  id = JSON.parse(made.stdout).id;
});
afterEach(async () => {
  // A guard that failed here must not poison the rest of the run.
  for (const k of ['polluted', 'x']) delete (Object.prototype as Record<string, unknown>)[k];
  await server.close();
  await dirs.cleanup();
});

const clean = () => expect(({} as Record<string, unknown>).polluted).toBeUndefined();

/** Exit 2, the key named, Object.prototype as it was. */
function refused(r: { code: number; stderr: string }, key: string) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(`'${key}'`);
  expect(r.stderr).toContain('not allowed');
  clean();
}

describe('the predicate', () => {
  it('knows the three keys in any case, and finds them in any segment', () => {
    for (const k of [
      '__proto__',
      'constructor',
      'prototype',
      '__PROTO__',
      'Constructor',
      'proTotype',
    ])
      expect(isForbiddenKey(k)).toBe(true);
    for (const k of ['proto', '__proto', 'constructors', 'profile', ''])
      expect(isForbiddenKey(k)).toBe(false);
    expect(forbiddenSegment('profile.__proto__.x')).toBe('__proto__');
    expect(forbiddenSegment('a.Constructor.prototype')).toBe('Constructor');
    expect(forbiddenSegment('profile.department')).toBeUndefined();
  });
});

describe('users update --set/--unset and invite --set', () => {
  it.each([
    ['--set', '__proto__.polluted=yes', '__proto__'],
    ['--set', 'profile.__proto__.polluted=yes', '__proto__'],
    ['--set', 'constructor.prototype.polluted=yes', 'constructor'],
    ['--set', 'profile.PROTOTYPE=yes', 'PROTOTYPE'],
    ['--unset', 'profile.__Proto__', '__Proto__'],
  ])('%s %s: refused (exit 2), the user unchanged', async (flag, value, key) => {
    const before = (await server.req('GET', `/api/users/${id}`)).text;
    refused(await roster(['users', 'update', id, flag, value]), key);
    expect((await server.req('GET', `/api/users/${id}`)).text).toBe(before);
    if (flag === '--set') {
      refused(
        await roster([
          'users',
          'invite',
          '--email',
          'bob@example.com',
          '--no-send-mail',
          flag,
          value,
        ]),
        key,
      );
    }
  });
});

describe('users import', () => {
  it.each([
    [
      'a column header',
      ['externalId,email,profile.__proto__\nE-2,bob@example.com,yes\n'],
      '__proto__',
    ],
    [
      'a column header, --ignore-unknown',
      ['externalId,profile.constructor\nE-2,x\n', '--ignore-unknown'],
      'constructor',
    ],
    [
      'a --map target',
      ['externalId,Dept\nE-2,x\n', '--map', 'Dept=profile.Prototype'],
      'Prototype',
    ],
  ])('%s: refused (exit 2), nothing imported', async (_n, [csv, ...flags], key) => {
    const file = join(dir, 'in.csv');
    writeFileSync(file, csv!);
    refused(await roster(['users', 'import', file, '--no-send-mail', ...flags]), key);
    expect((await server.req('GET', '/api/users/E-2')).status).toBe(404);
  });

  it('a saved plan or a run record holding such a key (JSON.parse makes it an own key): refused naming it', async () => {
    const file = join(dir, 'in.csv');
    writeFileSync(file, 'externalId,email\nE-2,bob@example.com\n');
    const plan = join(dir, 'plan.json');
    expect((await roster(['users', 'import', file, '--dry-run', '--save-plan', plan])).code).toBe(
      0,
    );
    const text = readFileSync(plan, 'utf8');
    writeFileSync(
      plan,
      text.replace('"changes": {', '"changes": {"__proto__": {"polluted": "yes"},'),
    );
    refused(await roster(['users', 'import', '--plan', plan]), 'rows[0].changes.__proto__');

    const report = join(dir, 'run.csv');
    expect(
      (await roster(['users', 'import', file, '--no-send-mail', '--report', report])).code,
    ).toBe(0);
    const record = `${report}.run.json`;
    writeFileSync(
      record,
      readFileSync(record, 'utf8').replace(
        '"options": {',
        '"options": {"constructor": {"prototype": {"polluted": 1}},',
      ),
    );
    refused(await roster(['users', 'import', '--resume', report]), 'options.constructor');
  });
});

describe('--fields', () => {
  it.each(['__proto__', 'profile.constructor', 'id,profile.PROTOTYPE.x'])(
    '--fields %s: refused (exit 2)',
    async (fields) => {
      const r = await roster(['users', 'list', '-o', 'json', '--fields', fields]);
      refused(r, forbiddenSegment(fields.split(',').at(-1)!)!);
    },
  );
});

describe('roster api --input', () => {
  it('a JSON body with such a key at any depth: refused before sending (exit 2)', async () => {
    const body = join(dir, 'body.json');
    writeFileSync(body, '{"email":"cem@example.com","profile":{"__proto__":{"polluted":"yes"}}}');
    refused(await roster(['api', '-X', 'POST', '/users', '--input', body]), 'profile.__proto__');
    const list = await server.req('GET', '/api/users?query=cem');
    expect(list.text).not.toContain('cem@example.com');
  });
});

describe('the config file and profile names', () => {
  it('a config file holding such a key: refused naming it and the file (exit 2)', async () => {
    const config = mkdtempSync(join(dir, 'cfg-'));
    writeFileSync(
      join(config, 'config.json'),
      `{"profiles":{"__proto__":{"baseUrl":"${server.url}/api","token":"${server.adminToken}"}}}`,
      { mode: 0o600 },
    );
    const r = await cliWith({ ROSTER_CONFIG_DIR: config, HOME: config })(['users', 'list']);
    refused(r, 'profiles.__proto__');
    expect(r.stderr).toContain(join(config, 'config.json'));
  });

  it.each([
    ['--profile', 'constructor'],
    ['--profile', '__proto__'],
  ])('%s %s: refused (exit 2)', async (flag, name) => {
    const config = mkdtempSync(join(dir, 'cfg-'));
    const run = cliWith({ ROSTER_CONFIG_DIR: config, HOME: config });
    refused(await run([flag, name, 'users', 'list']), name);
    refused(
      await run([
        flag,
        name,
        'login',
        '--base-url',
        `${server.url}/api`,
        '--token',
        server.adminToken,
      ]),
      name,
    );
  });
});
