/**
 * Sorting more rows than memory should hold (an export of a million users): rows are held up to
 * `runRows` at a time; each full run is sorted and written to a temp file, and the sorted rows
 * come back by merging the runs. The order is exactly what a stable `Array.prototype.sort` of
 * every row gives: a run's own sort is stable, and between runs a tie goes to the earlier one.
 * Fewer rows than `runRows` never touch the disk.
 *
 * A run file is frames of a 4-byte length and the row's text (the codec's), so reading one back
 * splits no lines and decodes each row once. The merge takes rows without a promise each: only
 * a reader whose buffer ran out waits for the disk (at 1M rows, a promise per row per level was
 * a tenth of the export's CPU; bench/HISTORY.md, "`users export` at 1M, the CLI's side").
 */
import { type FileHandle, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { destinationError } from '../files/destination.js';

/** How a row is written to a run file and read back (text either way). */
export interface RunCodec<T> {
  encode(row: T): string;
  decode(text: string): T;
}

const JSON_CODEC: RunCodec<never> = {
  encode: (row) => JSON.stringify(row),
  decode: (text) => JSON.parse(text) as never,
};

/** Bytes of a run file written or read per call. */
const CHUNK = 256 * 1024;
/** A frame's length prefix. */
const PREFIX = 4;
/** Rows per batch that `sorted` yields. */
const BATCH = 1000;

export class SortedRuns<T> {
  readonly #compare: (a: T, b: T) => number;
  readonly #runRows: number;
  readonly #codec: RunCodec<T>;
  #held: T[] = [];
  readonly #runs: string[] = [];
  #dir: string | undefined;

  constructor(compare: (a: T, b: T) => number, runRows: number, codec?: RunCodec<T>) {
    this.#compare = compare;
    this.#runRows = Math.max(1, runRows);
    this.#codec = codec ?? (JSON_CODEC as RunCodec<T>);
  }

  async add(row: T): Promise<void> {
    this.#held.push(row);
    if (this.#held.length >= this.#runRows) await this.#spill();
  }

  /** Every row added, in order, in batches; call once, after the last `add`. */
  async *sorted(): AsyncGenerator<T[], void, undefined> {
    const held = this.#held.sort(this.#compare);
    this.#held = [];
    if (this.#runs.length === 0) {
      for (let i = 0; i < held.length; i += BATCH) yield held.slice(i, i + BATCH);
      return;
    }
    // The rows still held are the last run: they were added after every spilled one.
    const sources: Source<T>[] = [
      ...this.#runs.map((path) => new RunReader(path, this.#codec)),
      new HeldRun(held),
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
    const path = join(this.#dir, `run-${this.#runs.length}`);
    try {
      // Users' data: readable by this user only, as every file Roster writes (in a 0700 dir).
      const file = await open(path, 'wx', 0o600);
      try {
        await writeFrames(file, rows, this.#codec);
      } finally {
        await file.close();
      }
    } catch (err) {
      throw destinationError(path, err);
    }
    this.#runs.push(path);
  }
}

async function writeFrames<T>(file: FileHandle, rows: T[], codec: RunCodec<T>): Promise<void> {
  let buf = Buffer.allocUnsafe(CHUNK);
  let used = 0;
  for (const row of rows) {
    const text = codec.encode(row);
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const most = PREFIX + text.length * 3;
    if (used + most > buf.length) {
      await writeAll(file, buf, used);
      used = 0;
      if (most > buf.length) buf = Buffer.allocUnsafe(most);
    }
    const n = buf.write(text, used + PREFIX, 'utf8');
    buf.writeUInt32LE(n, used);
    used += PREFIX + n;
  }
  await writeAll(file, buf, used);
}

/**
 * All of `buf`'s first `length` bytes: one write call may take fewer (a file size limit, a
 * filling disk) without an error, and the next then says why.
 */
export async function writeAll(
  file: Pick<FileHandle, 'write'>,
  buf: Buffer,
  length: number,
): Promise<void> {
  for (let at = 0; at < length; ) {
    const { bytesWritten } = await file.write(buf, at, length - at);
    if (bytesWritten === 0) throw new Error('a run file took no more bytes');
    at += bytesWritten;
  }
}

/**
 * A sorted run, taken a row at a time: `take` gives the next row, or undefined when the rows
 * read so far are used up; then `refill` reads more, and says false at the end.
 */
interface Source<T> {
  take(): T | undefined;
  refill(): Promise<boolean>;
  close(): Promise<void>;
}

class HeldRun<T> implements Source<T> {
  #next = 0;
  constructor(readonly rows: T[]) {}
  take = () => this.rows[this.#next++];
  refill = async () => false;
  close = async () => {};
}

class RunReader<T> implements Source<T> {
  readonly #path: string;
  readonly #codec: RunCodec<T>;
  #file: FileHandle | undefined;
  #buf = Buffer.allocUnsafe(CHUNK);
  #start = 0;
  #end = 0;
  #position = 0;
  #done = false;

  constructor(path: string, codec: RunCodec<T>) {
    this.#path = path;
    this.#codec = codec;
  }

  take(): T | undefined {
    const buf = this.#buf;
    const at = this.#start;
    if (this.#end - at < PREFIX) return undefined;
    const to = at + PREFIX + buf.readUInt32LE(at);
    if (to > this.#end) return undefined;
    this.#start = to;
    return this.#codec.decode(buf.toString('utf8', at + PREFIX, to));
  }

  async refill(): Promise<boolean> {
    if (this.#done) return false;
    this.#file ??= await open(this.#path, 'r');
    // A frame begun in this chunk moves to the front; one longer than the buffer, a larger one.
    const rest = this.#end - this.#start;
    const frame = rest >= PREFIX ? PREFIX + this.#buf.readUInt32LE(this.#start) : CHUNK;
    const size = Math.max(frame, CHUNK);
    const next = size === this.#buf.length ? this.#buf : Buffer.allocUnsafe(size);
    this.#buf.copy(next, 0, this.#start, this.#end);
    this.#buf = next;
    this.#start = 0;
    this.#end = rest;
    const { bytesRead } = await this.#file.read(next, rest, next.length - rest, this.#position);
    this.#position += bytesRead;
    this.#end += bytesRead;
    if (bytesRead === 0) {
      this.#done = true;
      if (rest > 0) throw new Error(`${this.#path}: the run file ends inside a row`);
      return false;
    }
    return true;
  }

  async close(): Promise<void> {
    this.#done = true;
    await this.#file?.close();
    this.#file = undefined;
  }
}

interface Head<T> {
  row: T;
  source: number;
}

/** Merges sorted sources in batches; a tie goes to the lower source index (stability). */
async function* merge<T>(
  sources: Source<T>[],
  compare: (a: T, b: T) => number,
): AsyncGenerator<T[], void, undefined> {
  const before = (a: Head<T>, b: Head<T>) => (compare(a.row, b.row) || a.source - b.source) < 0;
  // A binary min-heap of each source's next row.
  const heap: Head<T>[] = [];
  const siftDown = () => {
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < heap.length && before(heap[l]!, heap[least]!)) least = l;
      if (r < heap.length && before(heap[r]!, heap[least]!)) least = r;
      if (least === i) return;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  };
  const push = (head: Head<T>) => {
    let i = heap.push(head) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  try {
    for (let s = 0; s < sources.length; s++) {
      let row = sources[s]!.take();
      while (row === undefined && (await sources[s]!.refill())) row = sources[s]!.take();
      if (row !== undefined) push({ row, source: s });
    }
    let batch: T[] = [];
    while (heap.length > 0) {
      // The top's row goes out, and its source's next row takes its place in the heap.
      const top = heap[0]!;
      batch.push(top.row);
      const source = sources[top.source]!;
      let row = source.take();
      while (row === undefined && (await source.refill())) row = source.take();
      if (row === undefined) {
        const last = heap.pop()!;
        if (heap.length > 0) heap[0] = last;
      } else {
        top.row = row;
      }
      siftDown();
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    // An export that failed midway closes the files it was reading.
    await Promise.all(sources.map((s) => s.close()));
  }
}
