/** Sorting on disk beyond a run: the order of a stable in-memory sort, and no files left. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedRuns } from '../../src/import/sorted-runs.js';
import { tmpdirPerTest } from '../helpers/scratch.js';

interface Row {
  key: string | null;
  added: number;
}
// Only the key: rows with equal keys must keep the order they were added in.
const byKey = (a: Row, b: Row) => (a.key ?? '').localeCompare(b.key ?? '');

const temp = tmpdirPerTest('sorted-runs-test-');

async function sortThrough(rows: Row[], runRows: number) {
  const runs = new SortedRuns(byKey, runRows);
  try {
    for (const row of rows) await runs.add(row);
    const out: Row[] = [];
    for await (const row of runs.sorted()) out.push(row);
    return out;
  } finally {
    await runs.dispose();
  }
}

describe('SortedRuns', () => {
  it('gives what a stable sort of every row gives, however many runs', async () => {
    const key = fc.option(fc.constantFrom('a', 'B', 'b', 'ä', 'c', '"q"', 'line\nbreak', ''), {
      nil: null,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(key, { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        async (keys, runRows) => {
          const rows = keys.map((k, added) => ({ key: k, added }));
          expect(await sortThrough(rows, runRows)).toEqual([...rows].sort(byKey));
        },
      ),
    );
  });

  it('writes runs under the temp dir while sorting and removes them when disposed', async () => {
    const runs = new SortedRuns(byKey, 2);
    for (const [added, key] of ['c', 'a', 'b', 'a', 'c'].entries()) await runs.add({ key, added });
    expect(readdirSync(temp())).toHaveLength(1);
    const out: (string | null)[] = [];
    for await (const row of runs.sorted()) out.push(row.key);
    expect(out).toEqual(['a', 'a', 'b', 'c', 'c']);
    await runs.dispose();
    expect(readdirSync(temp())).toEqual([]);
  });

  it('keeps fewer rows than a run in memory', async () => {
    expect(
      await sortThrough(
        [
          { key: 'b', added: 0 },
          { key: 'a', added: 1 },
        ],
        3,
      ),
    ).toEqual([
      { key: 'a', added: 1 },
      { key: 'b', added: 0 },
    ]);
    expect(readdirSync(temp())).toEqual([]);
  });
});

describe('the run files', () => {
  it('hold users’ data readable by this user only: files 0600 in a 0700 dir', async () => {
    const runs = new SortedRuns(byKey, 1);
    await runs.add({ key: 'b', added: 0 });
    await runs.add({ key: 'a', added: 1 });
    const [dir] = readdirSync(temp());
    expect(statSync(join(temp(), dir!)).mode & 0o777).toBe(0o700);
    const files = readdirSync(join(temp(), dir!));
    expect(files).toHaveLength(2);
    for (const f of files) expect(statSync(join(temp(), dir!, f)).mode & 0o777, f).toBe(0o600);
    await runs.dispose();
  });
});
