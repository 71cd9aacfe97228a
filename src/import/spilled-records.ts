/**
 * Text records appended once and read back by number, held as UTF-8 bytes outside V8's heap: in
 * memory up to `memoryBytes`, then in a temp file unlinked as soon as it is open, so nothing is
 * left behind however the process ends. The import's snapshot keeps each known user here: a
 * million users' values are ~250 MB as strings on the heap, and 8 bytes each in memory here.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DestinationError, destinationError } from '../files/destination.js';

/** Bytes written to the file per write; also what `all()` reads at a time. */
const BLOCK = 1 << 20;

export class SpilledRecords {
  readonly #memoryBytes: number;
  /** Where record i ends, in bytes from the first record's start. */
  #ends = new Float64Array(1024);
  #count = 0;
  #bytes = 0;
  /** Before spilling: every record. After: the records not yet written to the file. */
  #held = Buffer.allocUnsafe(64 * 1024);
  /** The offset of `#held[0]` among all the records' bytes. */
  #heldFrom = 0;
  #fd: number | undefined;
  /** The temp file's path, named in errors. */
  #path = '';
  /** Whether the file is still there to remove at close (a platform that refused the unlink). */
  #linked = false;
  #scratch = Buffer.allocUnsafe(0);

  constructor(memoryBytes = 16 << 20) {
    this.#memoryBytes = memoryBytes;
  }

  get size(): number {
    return this.#count;
  }

  /** Whether the records went to a temp file. */
  get spilled(): boolean {
    return this.#fd !== undefined;
  }

  /** Appends a record; returns its number. */
  append(text: string): number {
    const length = Buffer.byteLength(text);
    if (this.#fd === undefined && this.#bytes + length > this.#memoryBytes) this.#spill();
    if (this.#fd !== undefined && this.#bytes - this.#heldFrom + length > BLOCK) this.#flush();
    const at = this.#bytes - this.#heldFrom;
    if (at + length > this.#held.length) {
      const grown = Buffer.allocUnsafe(Math.max(at + length, this.#held.length * 2));
      this.#held.copy(grown, 0, 0, at);
      this.#held = grown;
    }
    this.#held.write(text, at, length, 'utf8');
    this.#bytes += length;
    if (this.#count === this.#ends.length) {
      const ends = new Float64Array(this.#ends.length * 2);
      ends.set(this.#ends);
      this.#ends = ends;
    }
    this.#ends[this.#count] = this.#bytes;
    return this.#count++;
  }

  /** Record `i` (0 ≤ i < size). */
  get(i: number): string {
    const start = i === 0 ? 0 : this.#ends[i - 1]!;
    const end = this.#ends[i]!;
    // A flush writes whole records, so a record is either held or in the file, never split.
    if (start >= this.#heldFrom) {
      return this.#held.toString('utf8', start - this.#heldFrom, end - this.#heldFrom);
    }
    const length = end - start;
    if (this.#scratch.length < length) this.#scratch = Buffer.allocUnsafe(Math.max(length, 4096));
    this.#read(this.#scratch, length, start);
    return this.#scratch.toString('utf8', 0, length);
  }

  /** Every record in order, the file read a block at a time. */
  *all(): Generator<string, void, undefined> {
    let block = Buffer.allocUnsafe(0);
    let blockFrom = 0;
    let blockEnd = 0;
    for (let i = 0; i < this.#count; i++) {
      const start = i === 0 ? 0 : this.#ends[i - 1]!;
      const end = this.#ends[i]!;
      if (start >= this.#heldFrom) {
        yield this.#held.toString('utf8', start - this.#heldFrom, end - this.#heldFrom);
        continue;
      }
      if (end > blockEnd) {
        const length = Math.min(Math.max(BLOCK, end - start), this.#heldFrom - start);
        if (block.length < length) block = Buffer.allocUnsafe(length);
        this.#read(block, length, start);
        blockFrom = start;
        blockEnd = start + length;
      }
      yield block.toString('utf8', start - blockFrom, end - blockFrom);
    }
  }

  /** Lets the memory and the temp file go; the records cannot be read after. */
  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    if (this.#linked) rmSync(join(this.#path, '..'), { recursive: true, force: true });
    this.#fd = undefined;
    this.#linked = false;
    this.#held = Buffer.allocUnsafe(0);
    this.#heldFrom = this.#bytes;
  }

  #spill(): void {
    let dir: string | undefined;
    try {
      dir = mkdtempSync(join(tmpdir(), 'roster-snapshot-'));
      this.#path = join(dir, 'users');
      // Users' data: readable by this user only (the dir is 0700 too).
      this.#fd = openSync(this.#path, 'w+', 0o600);
    } catch (err) {
      if (dir) rmSync(dir, { recursive: true, force: true });
      throw spillError(this.#path || join(tmpdir(), 'roster-snapshot-…'), err);
    }
    const path = this.#path;
    try {
      unlinkSync(path);
      rmSync(dir, { recursive: true, force: true });
    } catch {
      this.#linked = true;
    }
    this.#flush();
  }

  #flush(): void {
    const length = this.#bytes - this.#heldFrom;
    let written = 0;
    try {
      while (written < length) {
        written += writeSync(
          this.#fd!,
          this.#held,
          written,
          length - written,
          this.#heldFrom + written,
        );
      }
    } catch (err) {
      throw spillError(this.#path, err);
    }
    this.#heldFrom = this.#bytes;
    // What memory held before the spill may be far more than one block: let it go.
    if (this.#held.length > BLOCK) this.#held = Buffer.allocUnsafe(BLOCK);
  }

  #read(into: Buffer, length: number, position: number): void {
    let got = 0;
    while (got < length) {
      const n = readSync(this.#fd!, into, got, length - got, position + got);
      if (n === 0) throw new Error(`the snapshot's temp file ended at ${position + got} bytes`);
      got += n;
    }
  }
}

/** A temp file that could not be written names TMPDIR, which a person can change. */
function spillError(path: string, err: unknown): unknown {
  const known = destinationError(path, err);
  if (!(known instanceof DestinationError)) return err;
  return new DestinationError(
    path,
    `${known.reason} (the users known to the service are held there while the plan is made: free space, or set TMPDIR to a directory with more)`,
    { cause: err },
  );
}
