/**
 * Sorting more rows than memory should hold (an export of a million users): rows are held up to
 * `runRows` at a time; each full run is sorted and written to a temp file, one JSON line per
 * row, and the sorted rows come back by merging the runs. The order is exactly what a stable
 * `Array.prototype.sort` of every row gives: a run's own sort is stable, and between runs a tie
 * goes to the earlier one. Fewer rows than `runRows` never touch the disk.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { destinationError } from '../files/destination.js';

/** Lines written to a run file per write call. */
const BATCH = 1000;

export class SortedRuns<T> {
  readonly #compare: (a: T, b: T) => number;
  readonly #runRows: number;
  #held: T[] = [];
  readonly #runs: string[] = [];
  #dir: string | undefined;

  constructor(compare: (a: T, b: T) => number, runRows: number) {
    this.#compare = compare;
    this.#runRows = Math.max(1, runRows);
  }

  async add(row: T): Promise<void> {
    this.#held.push(row);
    if (this.#held.length >= this.#runRows) await this.#spill();
  }

  /** Every row added, in order; call once, after the last `add`. */
  async *sorted(): AsyncGenerator<T, void, undefined> {
    const held = this.#held.sort(this.#compare);
    this.#held = [];
    if (this.#runs.length === 0) {
      yield* held;
      return;
    }
    // The rows still held are the last run: they were added after every spilled one.
    const sources: (Iterator<T> | AsyncIterator<T>)[] = [
      ...this.#runs.map((path) => rowsOf<T>(path)),
      held[Symbol.iterator](),
    ];
    yield* merge(sources, this.#compare);
  }

  /** Removes the temp files (after the rows were read, or on failure). */
  async dispose(): Promise<void> {
    if (this.#dir) await rm(this.#dir, { recursive: true, force: true });
    this.#dir = undefined;
  }

  async #spill(): Promise<void> {
    const rows = this.#held.sort(this.#compare);
    this.#held = [];
    this.#dir ??= await mkdtemp(join(tmpdir(), 'roster-export-'));
    const path = join(this.#dir, `run-${this.#runs.length}.ndjson`);
    try {
      // Users' data: readable by this user only, as every file Roster writes (in a 0700 dir).
      await writeFile(path, batches(rows), { mode: 0o600 });
    } catch (err) {
      throw destinationError(path, err);
    }
    this.#runs.push(path);
  }
}

function* batches<T>(rows: T[]): Generator<string> {
  for (let i = 0; i < rows.length; i += BATCH) {
    let text = '';
    for (const row of rows.slice(i, i + BATCH)) text += `${JSON.stringify(row)}\n`;
    yield text;
  }
}

/** A run file's rows, read a chunk at a time (JSON never holds a raw newline). */
async function* rowsOf<T>(path: string): AsyncGenerator<T, void, undefined> {
  let rest = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8' })) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) yield JSON.parse(line) as T;
  }
}

interface Head<T> {
  row: T;
  source: number;
}

/** Merges sorted sources; a tie goes to the lower source index (stability). */
async function* merge<T>(
  sources: (Iterator<T> | AsyncIterator<T>)[],
  compare: (a: T, b: T) => number,
): AsyncGenerator<T, void, undefined> {
  const before = (a: Head<T>, b: Head<T>) => (compare(a.row, b.row) || a.source - b.source) < 0;
  // A binary min-heap of each source's next row.
  const heap: Head<T>[] = [];
  const push = (head: Head<T>) => {
    let i = heap.push(head) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const popTop = () => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let least = i;
        if (l < heap.length && before(heap[l]!, heap[least]!)) least = l;
        if (r < heap.length && before(heap[r]!, heap[least]!)) least = r;
        if (least === i) break;
        [heap[i], heap[least]] = [heap[least]!, heap[i]!];
        i = least;
      }
    }
    return top;
  };
  const advance = async (source: number) => {
    const next = await sources[source]!.next();
    if (!next.done) push({ row: next.value, source });
  };
  try {
    for (let s = 0; s < sources.length; s++) await advance(s);
    while (heap.length > 0) {
      const top = popTop();
      yield top.row;
      await advance(top.source);
    }
  } finally {
    // An export that failed midway closes the files it was reading.
    await Promise.all(sources.map((s) => s.return?.()));
  }
}
