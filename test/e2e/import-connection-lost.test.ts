/** The service goes away in the middle of an import: the report holds what was done, and the
 * message names the --resume command that carries on. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, expect, test } from 'vitest';
import { BIN, spawnServe } from '../helpers/cli-server.js';

const dir = mkdtempSync(join(tmpdir(), 'roster-lost-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a server killed mid-import: exit 1, report flushed, --resume named', async () => {
  const data = join(dir, 'data');
  const config = join(dir, 'config');
  const served = await spawnServe(data, config);
  const csv = join(dir, 'many.csv');
  const rows = ['externalId,email'];
  for (let i = 0; i < 4000; i++) rows.push(`L-${i},l${i}@example.com`);
  writeFileSync(csv, `${rows.join('\n')}\n`);
  const report = join(dir, 'report.csv');
  const child = execa(
    process.execPath,
    [BIN, 'users', 'import', csv, '--report', report, '--no-send-mail', '--concurrency', '2'],
    { env: { ROSTER_CONFIG_DIR: config, NO_COLOR: '1' }, reject: false, stdin: 'ignore' },
  );
  // Wait until rows are being applied (the report grows), then take the service away.
  for (let i = 0; i < 400; i++) {
    const lines = (() => {
      try {
        return readFileSync(report, 'utf8').split('\n').length;
      } catch {
        return 0;
      }
    })();
    if (lines > 50) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  served.child.kill('SIGKILL');
  await served.child;
  const r = await child;
  expect(r.exitCode, String(r.stderr)).toBe(1);
  expect(String(r.stderr)).toContain(
    `continue with: roster users import ${csv} --resume ${report}`,
  );
  const done = readFileSync(report, 'utf8').trim().split('\n').length - 1;
  expect(done).toBeGreaterThan(0);
  expect(done).toBeLessThan(4000);
}, 60_000);
