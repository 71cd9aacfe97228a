/**
 * `roster serve` in-process, where it fails after it listens (the profile cannot be saved): the
 * error is the command's, and the server, the store and the data dir's lock go with it, instead
 * of a process left answering behind its own error.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { lockDataDir } from '../../../../src/store/data-dir/lock.js';
import { cliWith } from '../../../helpers/cli-run.js';
import { scratch } from '../../../helpers/scratch.js';

const dirs = scratch();
afterEach(dirs.cleanup);

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

test('a profile that cannot be saved stops serve: one line, exit 1, the port and the data dir free', async () => {
  const data = dirs.temp('roster-serve-run-data-');
  const notADir = join(dirs.temp('roster-serve-run-'), 'config');
  writeFileSync(notADir, 'a file where the config dir should be');
  const port = await freePort();
  const r = await cliWith({ ROSTER_CONFIG_DIR: notADir })([
    ...['serve', '--port', String(port), '--data', data],
  ]);
  expect(r.code).toBe(1);
  expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^error: .*config/);
  lockDataDir(data).release();
  const again = createServer();
  await new Promise<void>((resolve, reject) =>
    again.once('error', reject).listen(port, '127.0.0.1', resolve),
  );
  await new Promise((resolve) => again.close(resolve));
});
