/** Shared bits of the import tests: fixture paths, temp CSV files, collecting rows. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCsv, type ReadOptions } from '../../src/import/read.js';
import { cliAgainst } from '../helpers/cli-run.js';

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

/** A CSV of `n` people with keys `<prefix>-<i>`. */
export const people = (prefix: string, n: number, department = 'Sales') =>
  `externalId,email,firstName,lastName,department\n${Array.from(
    { length: n },
    (_, i) =>
      `${prefix}-${i},${prefix.toLowerCase()}${i}@example.com,First${i},Last${i},${department}`,
  ).join('\n')}\n`;

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
  const r = await cliAgainst(server, server.adminToken, configDir)(['users', 'import', ...args]);
  return { code: r.code, out: r.stdout, err: r.stderr };
}
