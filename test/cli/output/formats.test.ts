/**
 * `-o yaml`, `-o ids` and `--no-headers` (issue #24), through the CLI's run() in-process against
 * a real server.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run } from '../../../src/cli/main.js';
import { type CliServed, startCliServed } from '../../helpers/cli-run.js';
import { fakeIO } from '../helpers.js';

let srv: CliServed;
const ids: string[] = [];
let mediumId: string;
let dir: string;

beforeAll(async () => {
  srv = await startCliServed();
  dir = mkdtempSync(join(tmpdir(), 'roster-formats-'));
  for (const [email, first] of [
    ['ann@example.com', 'Ann'],
    ['yes@example.com', 'yes'],
    ['eve@example.com', 'Eve\u202eevil'],
  ]) {
    const r = await srv.run([
      ...['users', 'invite', '--no-send-mail', '--role', 'editor'],
      ...['--email', email!, '--first-name', first!],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    ids.push(JSON.parse(r.stdout).id);
  }
  writeFileSync(join(dir, 'notes.txt'), 'text\n');
  const up = await srv.run(['media', 'upload', join(dir, 'notes.txt')]);
  mediumId = JSON.parse(up.stdout)[0].id;
});
afterAll(async () => {
  await srv?.close();
});

describe('-o yaml', () => {
  it.each([
    [['users', 'list']],
    [['users', 'show', '{first}']],
    [['users', 'list', '--fields', 'id,profile.firstName']],
    [['media', 'list']],
  ])('%j: the JSON output, as YAML', async (given) => {
    const args = given.map((a) => (a === '{first}' ? ids[0]! : a));
    const json = await srv.run(['-o', 'json', ...args]);
    const yaml = await srv.run(['-o', 'yaml', ...args]);
    expect(yaml.exitCode, yaml.stderr).toBe(0);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  it('YAML 1.1 readers get strings too; bidi overrides are escaped, not raw', async () => {
    const r = await srv.run(['-o', 'yaml', 'users', 'list', '--fields', 'profile.firstName']);
    expect(r.stdout).toContain('firstName: "yes"');
    expect(r.stdout).toContain('firstName: "Eve\\u202eevil"');
    expect(r.stdout).not.toContain('\u202e');
    expect(parse(r.stdout, { version: '1.1' })).toContainEqual({
      profile: { firstName: 'yes' },
    });
    expect(parse(r.stdout)).toContainEqual({ profile: { firstName: 'Eve\u202eevil' } });
  });

  it('an empty list is []', async () => {
    const r = await srv.run(['-o', 'yaml', 'users', 'list', '--query', 'nobody-at-all']);
    expect(r.stdout).toBe('[]\n');
  });

  it('an import dry run: rows and summary, as -o json has them', async () => {
    const csv = join(dir, 'people.csv');
    writeFileSync(csv, 'email,firstName,role,locale\nann@example.com,Anna,editor,en_US\n');
    const args = ['users', 'import', csv, '--dry-run', '--no-send-mail', '--match', 'email'];
    const json = await srv.run(['-o', 'json', ...args]);
    const yaml = await srv.run(['-o', 'yaml', ...args]);
    expect(yaml.exitCode, yaml.stderr).toBe(0);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });
});

describe('-o ids', () => {
  it('users list: one id per line, ready for the next command', async () => {
    const r = await srv.run(['-o', 'ids', 'users', 'list']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n').sort()).toEqual([...ids].sort());
  });

  it('media list', async () => {
    const r = await srv.run(['-o', 'ids', 'media', 'list', '--all']);
    expect(r.stdout).toBe(`${mediumId}\n`);
  });

  it('elsewhere: a usage error naming where it works', async () => {
    const r = await srv.run(['-o', 'ids', 'users', 'show', ids[0]!]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('-o ids prints one id per line, for users list and media list');
  });
});

describe('--no-headers', () => {
  it('CSV without its header row', async () => {
    const r = await srv.run([
      ...['-o', 'csv', '--no-headers', 'users', 'list'],
      ...['--fields', 'id,email.value', '--sort', 'email_ASC'],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      `${ids[0]},ann@example.com`,
      `${ids[2]},eve@example.com`,
      `${ids[1]},yes@example.com`,
    ]);
  });

  it('a table without its header row', async () => {
    const fake = fakeIO({ tty: true });
    const code = await run(['node', 'roster', 'users', 'list', '--no-headers'], {
      io: fake.io,
      env: { NO_COLOR: '1', ...srv.env },
    });
    expect(code).toBe(0);
    const lines = fake.out().trimEnd().split('\n');
    expect(lines).toHaveLength(5); // top rule, three users, bottom rule
    expect(fake.out()).not.toContain('status');
    expect(fake.out()).not.toContain('├');
  });
});
