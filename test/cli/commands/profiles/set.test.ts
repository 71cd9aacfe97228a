/** `roster profiles set`: which profile it changes. Real config files, the CLI's run() in-process. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { cliWith, startCliServed } from '../../../helpers/cli-run.js';
import { scratch } from '../../../helpers/scratch.js';

const dirs = scratch();
afterEach(dirs.cleanup);

function configDir() {
  const dir = dirs.temp('roster-profiles-set-');
  const profile = (n: number) => ({ baseUrl: `http://127.0.0.1:${n}/api`, token: `t${n}` });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ currentProfile: 'a', profiles: { a: profile(1), b: profile(2) } }),
  );
  const defaults = () => {
    const { profiles } = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    return Object.fromEntries(
      Object.entries(profiles as Record<string, { role?: string; locale?: string }>).map(
        ([name, p]) => [name, [p.role, p.locale]],
      ),
    );
  };
  return { dir, defaults };
}

test('the profile named, else --profile, else ROSTER_PROFILE, else the current one', async () => {
  const set = ['profiles', 'set', '--role', 'reader', '--locale', 'de_DE'];
  const cases: [string[], Record<string, string>, string][] = [
    [['profiles', 'set', 'b', '--role', 'reader', '--locale', 'de_DE'], {}, 'b'],
    [['--profile', 'b', ...set], {}, 'b'],
    [set, { ROSTER_PROFILE: 'b' }, 'b'],
    [set, {}, 'a'],
  ];
  for (const [args, env, changed] of cases) {
    const { dir, defaults } = configDir();
    const r = await cliWith({ ROSTER_CONFIG_DIR: dir, ...env })(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`profile '${changed}': new users get role reader and locale de_DE`);
    const other = changed === 'a' ? 'b' : 'a';
    expect(defaults()).toEqual({
      [changed]: ['reader', 'de_DE'],
      [other]: [undefined, undefined],
    });
  }
});

test('a name and another --profile: a usage error, nothing changed', async () => {
  const { dir, defaults } = configDir();
  const r = await cliWith({ ROSTER_CONFIG_DIR: dir })([
    ...['--profile', 'a', 'profiles', 'set', 'b', '--role', 'reader'],
  ]);
  expect([r.code, r.stderr]).toEqual([
    2,
    expect.stringContaining('profiles set b --profile a: name one profile, not two'),
  ]);
  expect(defaults()).toEqual({ a: [undefined, undefined], b: [undefined, undefined] });
});

test('users invite and import with --profile: the advice names that profile, and as printed it works', async () => {
  const srv = await startCliServed({ likePlatform: true, vendor: 'staffbase' });
  dirs.defer(() => srv.close());
  const login = await srv.run([
    ...['login', '--base-url', srv.baseUrl, '--token', srv.adminToken, '--profile', 'sb'],
  ]);
  expect(login.exitCode, login.stderr).toBe(0);
  // `local` stays the current profile: the advice must not set its defaults instead.
  await srv.run(['profiles', 'use', 'local']);
  const csv = join(dirs.temp('roster-profiles-set-csv-'), 'people.csv');
  writeFileSync(csv, 'externalId,email\nP-1,p1@example.com\n');
  const invite = ['--profile', 'sb', 'users', 'invite', '--email', 'i@example.com'];
  const imported = ['--profile', 'sb', 'users', 'import', csv, '--no-send-mail'];
  for (const command of [invite, imported]) {
    const refused = await srv.run(command);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('`roster profiles set sb --role reader --locale de_DE`');
  }
  const advice = ['profiles', 'set', 'sb', '--role', 'reader', '--locale', 'de_DE'];
  expect((await srv.run(advice)).exitCode).toBe(0);
  for (const command of [invite, imported]) {
    const r = await srv.run(command);
    expect(r.exitCode, r.stderr).toBe(0);
  }
});
