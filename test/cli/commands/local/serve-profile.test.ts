/**
 * Which profile `serve` saves its token in (#24 item 2): never one that belongs to another data
 * dir. Real config files and real stores; the spawned journey is in test/e2e/serve-profiles.
 */
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { saveServeProfile } from '../../../../src/cli/commands/local/serve/profile.js';
import { openConfig, type Profile } from '../../../../src/cli/config.js';
import type { Store } from '../../../../src/store/store.js';
import { cliWith } from '../../../helpers/cli-run.js';
import { openTestStore } from '../../../helpers/database.js';
import { scratch } from '../../../helpers/scratch.js';

const dirs = scratch();
afterEach(dirs.cleanup);

/** A data dir `serve` has bootstrapped: its store and admin token. */
async function dataDir(prefix: string) {
  const dir = dirs.temp(prefix);
  const opened = await openTestStore(dir);
  dirs.defer(opened.dispose);
  const token = (await opened.store.bootstrap())!.adminToken;
  return { dir, store: opened.store, token };
}

const authenticates = (store: Store) => async (token: string) =>
  (await store.tokens.authenticate(token)) !== undefined;

async function config() {
  const configDir = dirs.temp('roster-serve-profile-config-');
  const env = { ROSTER_CONFIG_DIR: configDir };
  const profiles = () =>
    JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles as Record<
      string,
      Profile
    >;
  return { env, configDir, conf: await openConfig(env), profiles };
}

test('a second data dir is saved as local-<port>; each restart finds its own profile', async () => {
  const { conf, profiles } = await config();
  const a = await dataDir('roster-a-');
  const b = await dataDir('roster-b-');
  const save = (d: typeof a, port: number, fresh: boolean) =>
    saveServeProfile(conf, {
      dataDir: d.dir,
      baseUrl: `http://127.0.0.1:${port}/api`,
      port,
      newToken: fresh ? d.token : undefined,
      authenticates: authenticates(d.store),
    });

  expect(await save(a, 8080, true)).toEqual({ action: 'saved', name: 'local' });
  expect(await save(b, 8081, true)).toEqual({
    action: 'saved',
    name: 'local-8081',
    displaced: { name: 'local', dataDir: realpathSync(a.dir) },
  });
  expect(profiles()).toEqual({
    local: { baseUrl: 'http://127.0.0.1:8080/api', token: a.token, dataDir: realpathSync(a.dir) },
    'local-8081': {
      baseUrl: 'http://127.0.0.1:8081/api',
      token: b.token,
      dataDir: realpathSync(b.dir),
    },
  });

  // Restarts on other ports: each data dir's profile follows it, the name stays.
  expect(await save(b, 9001, false)).toEqual({ action: 'updated', name: 'local-8081' });
  expect(await save(a, 9000, false)).toEqual({ action: 'updated', name: 'local' });
  expect(profiles().local!.baseUrl).toBe('http://127.0.0.1:9000/api');
  expect(profiles()['local-8081']!.baseUrl).toBe('http://127.0.0.1:9001/api');
  expect(profiles().local!.token).toBe(a.token);
});

test('the data dir is recorded as its real path: a symlink to it is the same data dir', async () => {
  const { conf, profiles } = await config();
  const a = await dataDir('roster-a-');
  const link = join(dirs.temp('roster-links-'), 'a');
  symlinkSync(a.dir, link);
  const base = { baseUrl: 'http://127.0.0.1:8080/api', port: 8080 };
  await saveServeProfile(conf, {
    ...base,
    dataDir: link,
    newToken: a.token,
    authenticates: authenticates(a.store),
  });
  expect(profiles().local!.dataDir).toBe(realpathSync(a.dir));
  const again = await saveServeProfile(conf, {
    ...base,
    dataDir: a.dir,
    authenticates: authenticates(a.store),
  });
  expect(again).toEqual({ action: 'updated', name: 'local' });
});

test('a profile without a data dir (older config) is adopted when its token works here, else kept', async () => {
  const { conf, configDir, profiles } = await config();
  const a = await dataDir('roster-a-');
  const b = await dataDir('roster-b-');
  const legacy = { baseUrl: 'http://127.0.0.1:8080/api', token: a.token };
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { local: legacy } }));

  // B's fresh token does not replace a token B cannot vouch for.
  const fromB = await saveServeProfile(conf, {
    dataDir: b.dir,
    baseUrl: 'http://127.0.0.1:8081/api',
    port: 8081,
    newToken: b.token,
    authenticates: authenticates(b.store),
  });
  expect(fromB).toEqual({ action: 'saved', name: 'local-8081', displaced: { name: 'local' } });
  expect(profiles().local).toEqual(legacy);

  // A recognises its token: the profile is A's from now on.
  const fromA = await saveServeProfile(conf, {
    dataDir: a.dir,
    baseUrl: 'http://127.0.0.1:8090/api',
    port: 8090,
    authenticates: authenticates(a.store),
  });
  expect(fromA).toEqual({ action: 'updated', name: 'local' });
  expect(profiles().local).toEqual({
    baseUrl: 'http://127.0.0.1:8090/api',
    token: a.token,
    dataDir: realpathSync(a.dir),
  });
});

test("a data dir made anew replaces its own profile's dead token, in place", async () => {
  const { conf, configDir, profiles } = await config();
  const a = await dataDir('roster-a-');
  const dead = { baseUrl: 'http://127.0.0.1:8081/api', token: 'ZGVhZDpkZWFk', dataDir: a.dir };
  const other = { baseUrl: 'http://127.0.0.1:8080/api', token: 'b3RoZXI6b3RoZXI=', dataDir: '/x' };
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({ profiles: { local: other, 'local-8081': dead } }),
  );
  const r = await saveServeProfile(conf, {
    dataDir: a.dir,
    baseUrl: 'http://127.0.0.1:8082/api',
    port: 8082,
    newToken: a.token,
    authenticates: authenticates(a.store),
  });
  expect(r).toMatchObject({ action: 'saved', name: 'local-8081' });
  expect(profiles()['local-8081']!.token).toBe(a.token);
  expect(profiles().local).toEqual(other);
});

test('profiles list shows each profile’s URL and data dir', async () => {
  const { env, configDir } = await config();
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      profiles: {
        local: { baseUrl: 'http://127.0.0.1:8080/api', token: 't', dataDir: '/srv/a' },
        'local-8081': { baseUrl: 'http://127.0.0.1:8081/api', token: 't', dataDir: '/srv/b' },
        prod: { baseUrl: 'https://api.example.com/api', token: 't' },
      },
    }),
  );
  const r = await cliWith(env)(['profiles', 'list', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  const rows = JSON.parse(r.stdout) as { name: string; baseUrl: string; dataDir: string }[];
  expect(rows.map((p) => [p.name, p.baseUrl, p.dataDir])).toEqual([
    ['local', 'http://127.0.0.1:8080/api', '/srv/a'],
    ['local-8081', 'http://127.0.0.1:8081/api', '/srv/b'],
    ['prod', 'https://api.example.com/api', null],
  ]);
  const table = await cliWith(env)(['profiles', 'list', '-o', 'table']);
  expect(table.stdout).toContain('/srv/b');
});

test('a profile `roster login` made is never rewritten: a copy its token works in gets its own', async () => {
  const { conf, configDir, profiles } = await config();
  const a = await dataDir('roster-a-');
  // Logged in to A's serve by hand; then A's backup is served on another port.
  const work = { baseUrl: 'http://127.0.0.1:8080/api', token: a.token };
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({ current: 'work', profiles: { work } }),
  );
  const restored = dirs.temp('roster-restored-');
  const r = await saveServeProfile(conf, {
    dataDir: restored,
    baseUrl: 'http://127.0.0.1:9000/api',
    port: 9000,
    authenticates: authenticates(a.store),
  });
  expect(r).toEqual({ action: 'saved', name: 'local' });
  expect(profiles().work).toEqual(work);
  expect(profiles().local).toEqual({
    baseUrl: 'http://127.0.0.1:9000/api',
    token: a.token,
    dataDir: realpathSync(restored),
  });
});

test('a data dir restored from another one’s backup gets its own profile with the token that works', async () => {
  const { conf, profiles } = await config();
  const a = await dataDir('roster-a-');
  const restored = dirs.temp('roster-restored-');
  const base = { authenticates: authenticates(a.store) };
  await saveServeProfile(conf, {
    ...base,
    dataDir: a.dir,
    baseUrl: 'http://127.0.0.1:8080/api',
    port: 8080,
    newToken: a.token,
  });
  // The restored copy holds the same tokens (its store answers as a's does), but is not a's dir.
  const r = await saveServeProfile(conf, {
    ...base,
    dataDir: restored,
    baseUrl: 'http://127.0.0.1:9000/api',
    port: 9000,
  });
  expect(r).toMatchObject({ action: 'saved', name: 'local-9000' });
  expect(profiles()['local-9000']).toEqual({
    baseUrl: 'http://127.0.0.1:9000/api',
    token: a.token,
    dataDir: realpathSync(restored),
  });
  expect(profiles().local!.baseUrl).toBe('http://127.0.0.1:8080/api');

  // Nothing that works here and no new token: nothing is saved.
  const other = await dataDir('roster-other-');
  const none = await saveServeProfile(conf, {
    dataDir: other.dir,
    baseUrl: 'http://127.0.0.1:9001/api',
    port: 9001,
    authenticates: authenticates(other.store),
  });
  expect(none).toEqual({ action: 'absent' });
  expect(Object.keys(profiles()).sort()).toEqual(['local', 'local-9000']);
});
