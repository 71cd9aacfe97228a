/**
 * Media files behind one interface, local disk (local.ts) or an S3-compatible object store
 * (s3.ts), so the service and the sweep never ask which.
 */
import type { Readable, Writable } from 'node:stream';

export interface BlobStore {
  /** Whether other processes write here too (an object store replicas share; not a data dir). */
  readonly shared: boolean;
  /** Where the media are, for messages: the files directory, or `s3://bucket/prefix at endpoint`. */
  readonly location: string;
  /** A fresh path in the temp area, to write a file to (the directory exists after `init`). */
  tempPath(): string;
  /**
   * Starts storing `key` from bytes still arriving: an object store gets them as they come (sent
   * after the fact, a big upload would take twice as long), local disk writes them to a temp file
   * it renames at `commit`. Either way the bytes are also in a local file (previews need one).
   */
  begin(key: string): BlobWrite;
  /** Stores a finished temp file durably under `key`; the temp file is gone afterwards. */
  put(key: string, tempPath: string): Promise<void>;
  /** The bytes of `key` (an inclusive range, or all); rejects when it does not exist. */
  get(key: string, range?: { start: number; end: number }): Promise<Readable>;
  stat(key: string): Promise<{ size: number } | undefined>;
  /** When `key` was written (ms since the epoch), or undefined when it does not exist. */
  modifiedAt(key: string): Promise<number | undefined>;
  /** Removes `key`; no error when it is already gone. */
  delete(key: string): Promise<void>;
  /** Removes a temp file, if it exists. */
  discardTemp(path: string): Promise<void>;
  /** Every stored key, for the start-up sweep. */
  keys(): AsyncIterable<string>;
  /**
   * Whether the root holding the files is there: an unmounted volume or a restore in progress
   * must not look like a store that lost every file. `where` names it for messages.
   */
  inspectRoot(): Promise<{ state: 'present' | 'missing' | 'unreadable'; where: string }>;
  /** Creates the directories and removes every temp file (start-up only); returns how many. */
  sweepTemp(): Promise<number>;
  /**
   * Abandons writes into the store that a crashed process began and never finished and that
   * began before `before` (ms since the epoch): an object store keeps their parts, unseen and
   * billed, until told. Returns how many (none on local disk: a crash leaves only temp files).
   */
  abortUnfinished(before: number): Promise<number>;
  /** Lets go of connections (an object store's keep-alive sockets would keep the process up). */
  close(): Promise<void>;
}

/** A write under way: write the body to `sink` (with backpressure), end it, then `commit()`. */
export interface BlobWrite {
  /** Destroyed with the store's error when storing fails, so the writer stops at once. */
  sink: Writable;
  /** The local, seekable copy of what went into `sink`, whole once the sink has finished. */
  localPath: string;
  /** Makes the object appear under its key, once the whole body went into the ended sink. */
  commit(): Promise<void>;
  /** Gives up: nothing stays, here or in the store (instead of commit, or after it failed). */
  abort(): Promise<void>;
}

/** What a blob key may look like (ids and `<id>.preview`): no path or key tricks. */
export const BLOB_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
