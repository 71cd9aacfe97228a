/**
 * #24 item 2 as a user meets it: a second `serve` beside the first keeps its hands off profile
 * `local`; the rules themselves are in test/cli/commands/local/serve-profile.test.ts.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { roster, spawnServe } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';

const scope = scratch();
afterEach(scope.cleanup);

const profilesIn = (configDir: string) =>
  JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles as Record<
    string,
    { baseUrl: string; token: string; dataDir?: string }
  >;

test('serve A, then serve B: B is saved as local-<port>, A keeps local, a restart of A finds it', async () => {
  const a = scope.temp('roster-prof-a-');
  const b = scope.temp('roster-prof-b-');
  const config = scope.temp('roster-prof-config-');
  const env = { ROSTER_CONFIG_DIR: config };
  const first = await spawnServe(a, config);
  scope.defer(() => first.child.kill('SIGTERM'));
  const tokenA = profilesIn(config).local!.token;
  const second = await spawnServe(b, config);
  scope.defer(() => second.child.kill('SIGTERM'));
  const portB = new URL(second.url).port;
  const logs = second.logs.join('\n');
  expect(logs).toContain(`CLI profile 'local' belongs to ${realpathSync(a)}: left as it is`);
  expect(logs).toContain(`saved it as CLI profile 'local-${portB}'`);
  expect(logs).toContain(`next: roster --profile local-${portB} users list`);

  const list = await roster(['profiles', 'list', '-o', 'json'], { env });
  expect(list.exitCode, list.stderr).toBe(0);
  const rows = JSON.parse(list.stdout) as { name: string; baseUrl: string; dataDir: string }[];
  expect(rows.map((r) => [r.name, r.baseUrl, r.dataDir])).toEqual([
    ['local', `${first.url}/api`, realpathSync(a)],
    [`local-${portB}`, `${second.url}/api`, realpathSync(b)],
  ]);
  // The printed next step works as printed.
  const users = await roster(['--profile', `local-${portB}`, 'users', 'list', '-o', 'json'], {
    env,
  });
  expect(users.exitCode, users.stderr).toBe(0);

  first.child.kill('SIGTERM');
  await first.child;
  const again = await spawnServe(a, config);
  scope.defer(() => again.child.kill('SIGTERM'));
  const after = profilesIn(config);
  expect(Object.keys(after).sort()).toEqual(['local', `local-${portB}`]);
  expect(after.local).toEqual({
    baseUrl: `${again.url}/api`,
    token: tokenA,
    dataDir: realpathSync(a),
  });
}, 120_000);
