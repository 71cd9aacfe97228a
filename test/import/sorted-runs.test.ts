/** Sorting on disk beyond a run: the order of a stable in-memory sort, and no files left. */
import { readdirSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedRuns, writeAll } from '../../src/import/sorted-runs.js';
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
    for await (const batch of runs.sorted()) out.push(...batch);
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
    for await (const batch of runs.sorted()) out.push(...batch.map((row) => row.key));
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

describe('SortedRuns at size', () => {
  it('comes back in batches of at most 1,000, in the order of a stable sort', async () => {
    const rows = Array.from({ length: 2500 }, (_, added) => ({
      key: `k${(added * 7919) % 97}`,
      added,
    }));
    const runs = new SortedRuns(byKey, 700);
    try {
      for (const row of rows) await runs.add(row);
      const sizes: number[] = [];
      const out: Row[] = [];
      for await (const batch of runs.sorted()) {
        sizes.push(batch.length);
        out.push(...batch);
      }
      expect(out).toEqual([...rows].sort(byKey));
      expect(Math.max(...sizes)).toBe(1000);
    } finally {
      await runs.dispose();
    }
  });

  it('reads back rows longer than a read of the file, and characters split between reads', async () => {
    // A read is 256 KiB: rows of 3-byte and 4-byte characters, some longer than a read, put
    // frame and character boundaries at every offset of a read somewhere.
    const text = (n: number) => '€😀ä'.repeat(n);
    const rows = [90_000, 5, 40_001, 70_000, 1, 33_333, 120_000, 7].map((n, added) => ({
      key: `${added % 3}${text(n)}`,
      added,
    }));
    expect(await sortThrough(rows, 2)).toEqual([...rows].sort(byKey));
  });

  it('says so when a run file was cut short, rather than losing rows', async () => {
    const runs = new SortedRuns(byKey, 1);
    try {
      await runs.add({ key: 'b', added: 0 });
      await runs.add({ key: 'a', added: 1 });
      const [dir] = readdirSync(temp());
      const [first] = readdirSync(join(temp(), dir!)).sort();
      const path = join(temp(), dir!, first!);
      truncateSync(path, statSync(path).size - 1);
      const reading = (async () => {
        for await (const _ of runs.sorted());
      })();
      await expect(reading).rejects.toThrow(/ends inside a row/);
    } finally {
      await runs.dispose();
    }
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

describe('writing a run file', () => {
  // A real short write needs a file size limit or a disk that fills (ulimit -f in a shell of
  // its own): faked here, as a handle that takes a few bytes a call, then none.
  it('a short write (faked) writes the rest; a write that takes nothing is an error', async () => {
    const taken: number[] = [];
    const stingy = {
      write: async (_b: Buffer, _at: number, length: number) => {
        const n = Math.min(3, length);
        taken.push(n);
        return { bytesWritten: n, buffer: _b };
      },
    } as unknown as Parameters<typeof writeAll>[0];
    await writeAll(stingy, Buffer.from('0123456789'), 10);
    expect(taken).toEqual([3, 3, 3, 1]);
    const full = {
      write: async (b: Buffer) => ({ bytesWritten: 0, buffer: b }),
    } as unknown as Parameters<typeof writeAll>[0];
    await expect(writeAll(full, Buffer.from('x'), 1)).rejects.toThrow(/took no more bytes/);
  });
});
