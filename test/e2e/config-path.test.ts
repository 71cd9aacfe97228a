/**
 * Where the config file lives and what it looks like, pinned for people upgrading: on Linux
 * $XDG_CONFIG_HOME/roster/config.json, else ~/.config/roster/config.json (conf's env-paths rule
 * with no suffix), JSON indented with tabs, mode 0600. The built CLI runs with a HOME of its
 * own because the rule is resolved from HOME at load time; reads (`profiles list`) and writes
 * (`profiles use`, through conf) must both find the same file.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { roster } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();

const root = dirs.temp('roster-config-path-');
afterAll(dirs.cleanup);

const profile = (host: string) => ({
  baseUrl: `https://${host}.example.com/api`,
  token: `t-${host}`,
});

/** A config file as an older Roster wrote it, then a read and a write through the CLI. */
async function readThenWrite(env: Record<string, string>, expected: string) {
  mkdirSync(join(expected, '..'), { recursive: true });
  const before = { profiles: { a: profile('a'), b: profile('b') }, currentProfile: 'a' };
  writeFileSync(expected, `${JSON.stringify(before, undefined, '\t')}`, { mode: 0o600 });

  const list = await roster(['profiles', 'list', '-o', 'json'], { env });
  expect(list.stderr).toBe('');
  expect(list.exitCode).toBe(0);
  expect(JSON.parse(list.stdout)).toMatchObject([
    { name: 'a', current: true, baseUrl: 'https://a.example.com/api' },
    { name: 'b', current: false, baseUrl: 'https://b.example.com/api' },
  ]);

  const use = await roster(['profiles', 'use', 'b'], { env });
  expect(use.exitCode, use.stderr).toBe(0);
  expect(readFileSync(expected, 'utf8')).toBe(
    '{\n\t"profiles": {\n' +
      '\t\t"a": {\n\t\t\t"baseUrl": "https://a.example.com/api",\n\t\t\t"token": "t-a"\n\t\t},\n' +
      '\t\t"b": {\n\t\t\t"baseUrl": "https://b.example.com/api",\n\t\t\t"token": "t-b"\n\t\t}\n' +
      '\t},\n\t"currentProfile": "b"\n}',
  );
  expect(statSync(expected).mode & 0o777).toBe(0o600);
}

describe('the config file for existing users', () => {
  it('is ~/.config/roster/config.json without XDG_CONFIG_HOME', async () => {
    const home = join(root, 'home-plain');
    await readThenWrite({ HOME: home }, join(home, '.config', 'roster', 'config.json'));
  });

  it('is $XDG_CONFIG_HOME/roster/config.json with it, and nothing lands under ~/.config', async () => {
    const home = join(root, 'home-xdg');
    const xdg = join(root, 'xdg');
    mkdirSync(home, { recursive: true });
    await readThenWrite({ HOME: home, XDG_CONFIG_HOME: xdg }, join(xdg, 'roster', 'config.json'));
    expect(existsSync(join(home, '.config'))).toBe(false);
  });
});

describe('the data dir for existing users', () => {
  // `backup` names the data dir it looked in when there is none: the default, resolved.
  it.each([
    ['~/.local/share/roster without XDG_DATA_HOME', {}, ['home', '.local', 'share', 'roster']],
    [
      '$XDG_DATA_HOME/roster with it',
      { XDG_DATA_HOME: join(root, 'data-xdg') },
      ['data-xdg', 'roster'],
    ],
  ])('is %s', async (_, extra, expected) => {
    const home = join(root, 'home');
    const r = await roster(['backup', '--to', join(root, 'out.db')], {
      env: { HOME: home, ...extra },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`no Roster data in ${join(root, ...expected)}:`);
  });
});
