/** Shared bits of the import tests: fixture paths, temp CSV files, collecting rows. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCsv, type ReadOptions } from '../../src/import/read.js';

export const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'csv');
export const fixture = (name: string) => join(FIXTURES, name);

const dir = mkdtempSync(join(tmpdir(), 'roster-import-test-'));
let n = 0;

/** Writes `content` to a fresh temp file and returns its path. */
export function tempCsv(content: string | Buffer, name = `t${++n}.csv`): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** Header and every record of a CSV file. */
export async function readAll(path: string, opts: ReadOptions = {}) {
  const csv = await openCsv(path, opts);
  const rows = [];
  for await (const r of csv.records) rows.push(r);
  return { header: csv.header, delimiter: csv.delimiter, rows };
}

/**
 * `roster users import ARGS` in-process (the CLI's run()) against a real server: its exit code,
 * stdout and stderr.
 */
export async function importViaCli(
  server: { url: string; adminToken: string },
  configDir: string,
  args: string[],
) {
  const { run } = await import('../../src/cli/main.js');
  const { fakeIO } = await import('../cli/helpers.js');
  const fake = fakeIO();
  const code = await run(['node', 'roster', 'users', 'import', ...args], {
    io: fake.io,
    env: {
      ROSTER_BASE_URL: `${server.url}/api`,
      ROSTER_TOKEN: server.adminToken,
      ROSTER_CONFIG_DIR: configDir,
    },
  });
  return { code, out: fake.out(), err: fake.err() };
}
