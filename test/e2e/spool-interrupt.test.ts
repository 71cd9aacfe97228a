/**
 * `users import -` keeps stdin in a temp file while it plans and applies; Ctrl-C ends the
 * process with process.exit, which runs no async cleanup: the spool must still go (#44 rough
 * edge). Spawned, since only a real process exit shows it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, expect, it } from 'vitest';
import { BIN } from '../helpers/e2e.js';
import { eventually } from '../helpers/eventually.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();
afterAll(dirs.cleanup);

it('Ctrl-C while stdin is spooled: exit 130, and no roster-stdin- dir is left in TMPDIR', async () => {
  const tmp = dirs.temp('roster-spool-tmp-');
  const child = execa(process.execPath, [BIN, 'users', 'import', '-', '--no-send-mail'], {
    env: {
      PATH: process.env.PATH,
      NO_COLOR: '1',
      HOME: dirs.temp('roster-spool-home-'),
      TMPDIR: tmp,
      ROSTER_BASE_URL: 'http://127.0.0.1:9/api',
      ROSTER_TOKEN: 'unused',
    },
    extendEnv: false,
    reject: false,
  });
  // The header arrives, the rest of the file never does: the CLI waits in the spool.
  child.stdin!.write('externalId,email\n');
  await eventually(() => {
    const [spool] = readdirSync(tmp).filter((f) => f.startsWith('roster-stdin-'));
    return spool !== undefined && existsSync(join(tmp, spool, 'stdin.csv'));
  }, 30_000);
  child.kill('SIGINT');
  const r = await child;
  expect(r.exitCode, String(r.stderr)).toBe(130);
  // Roster's own dirs: Node 26 keeps its compile cache under TMPDIR too.
  expect(readdirSync(tmp).filter((name) => name.startsWith('roster-'))).toEqual([]);
});
