/** A CSV the user may not read: one line saying so, not a raw EACCES. */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, expect, test } from 'vitest';
import { BIN } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();

const dir = dirs.temp('roster-unreadable-');
afterAll(dirs.cleanup);

test('users import of an unreadable file: exit 1, one line naming the file and the cause', async () => {
  chmodSync(dir, 0o755);
  const file = join(dir, 'secret.csv');
  writeFileSync(file, 'externalId,email\nA-1,a@example.com\n');
  chmodSync(file, 0o000);
  // root reads any file: then the CLI runs as nobody, for whom the mode counts.
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const r = await execa(process.execPath, [BIN, 'users', 'import', file], {
    env: {
      PATH: process.env.PATH,
      ROSTER_BASE_URL: 'http://127.0.0.1:9/api',
      ROSTER_TOKEN: 'dA==',
      HOME: dir,
    },
    extendEnv: false,
    reject: false,
    ...asNobody,
  });
  expect(r.exitCode).toBe(1);
  expect(String(r.stderr).trim()).toBe(
    `error: ${file}: permission denied: this user may not read it (check its mode and owner)`,
  );
});
