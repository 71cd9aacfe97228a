/**
 * Every file the CLI writes where a person told it to (an export, a report, a saved plan, a run
 * record, a download, a backup, the config) is written whole or not at all, and a failure is one
 * line naming the destination the person gave (never the temp file beside it) and the cause in
 * words: a crash with an `EACCES … people.csv.4314.tmp` stack told them neither.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  closeSync,
  constants,
  createWriteStream,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** A file that could not be written: `cannot write PATH: cause`. The CLI exits 1 on it. */
export class DestinationError extends Error {
  override name = 'DestinationError';
  constructor(
    readonly path: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot write ${path}: ${reason}`, options);
  }
}

/** The causes a person can act on, by the system's error code. */
function reasonOf(code: string | undefined, path: string): string | undefined {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `permission denied (check who may write to ${dirname(path)})`;
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
    case 'SQLITE_FULL':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EFBIG':
      return 'the file is too large for this file system';
    case 'ENOENT':
      return `the directory ${dirname(path)} does not exist`;
    case 'ENOTDIR':
      return `a part of ${dirname(path)} is not a directory`;
    case 'EISDIR':
      return 'it is a directory; give a file name';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'ELOOP':
      return 'it is a symbolic link, and it is not followed; name another file (or remove it)';
    default:
      return undefined;
  }
}

/**
 * A failure to write `path` as the person should read it; an error that is not about the file
 * (the service failed mid-export, say) is returned as it is.
 */
export function destinationError(path: string, err: unknown): unknown {
  if (err instanceof DestinationError) return err;
  const reason = reasonOf((err as NodeJS.ErrnoException | undefined)?.code, path);
  return reason === undefined ? err : new DestinationError(path, reason, { cause: err });
}

/** A temp file's name beside `path`, hidden, unique to this write. */
const tempBeside = (path: string) =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(3).toString('hex')}.tmp`);

export interface WholeOptions {
  /** The new file's mode (default 0o644 less the umask; 0o600 for anything with secrets). */
  mode?: number;
  /**
   * The new content is on disk before it replaces the old (fsync, then rename): for a file
   * that replaces one whose content must survive a crash either way (a report being resumed).
   */
  durable?: boolean;
}

/**
 * Streams a file into place: `write` fills a temp file beside `path`, which replaces `path`
 * only when complete. On any failure the temp file is removed and `path` is as it was.
 */
export async function writeWhole<T>(
  path: string,
  write: (out: Writable) => Promise<T>,
  { mode }: WholeOptions = {},
): Promise<T> {
  if (isSpecial(path)) return writeInto(path, write);
  const temp = tempBeside(path);
  const out = createWriteStream(temp, { flags: 'wx', mode });
  // The file's own error is the cause to report, whatever `write` saw of it; and it ends the
  // wait at once: a writer waiting for 'drain' on a stream that failed would wait forever.
  let failure: unknown;
  const failed = new Promise<never>((_, reject) =>
    out.once('error', (err) => {
      failure = err;
      reject(err);
    }),
  );
  failed.catch(() => {});
  try {
    await Promise.race([once(out, 'open'), failed]);
    const result = await Promise.race([write(out), failed]);
    out.end();
    await Promise.race([finished(out), failed]);
    await rename(temp, path);
    return result;
  } catch (err) {
    out.destroy();
    await rm(temp, { force: true });
    throw destinationError(path, failure ?? err);
  }
}

/**
 * A named pipe, a device or a socket: written into as by `>`, never renamed over (it would
 * become a plain file; as root, /dev/null too). Every writer of a person's destination asks this.
 */
export const isSpecial = (path: string) => {
  const found = statSync(path, { throwIfNoEntry: false });
  return found !== undefined && !found.isFile() && !found.isDirectory();
};

/**
 * Streams into a special file: renamed over, it would be replaced by a plain file (as root,
 * /dev/null too). What reached it cannot be taken back.
 */
async function writeInto<T>(path: string, write: (out: Writable) => Promise<T>): Promise<T> {
  const out = createWriteStream(path, { flags: 'w' });
  try {
    await once(out, 'open');
    const result = await write(out);
    out.end();
    await finished(out);
    return result;
  } catch (err) {
    out.destroy();
    throw destinationError(path, err);
  }
}

/**
 * A new file at `path` holding `head`, made beside it and renamed into place: whatever name was
 * there (a symlink someone planted in a shared directory, an old file) is replaced, never
 * written through. Returns the new file's descriptor, open for reading and appending more.
 */
export function openFresh(path: string, head: string, mode = 0o600): number {
  const temp = tempBeside(path);
  let fd: number | undefined;
  try {
    const { O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_APPEND } = constants;
    fd = openSync(temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND, mode);
    writeSync(fd, head);
    renameSync(temp, path);
    return fd;
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    throw destinationError(path, err);
  }
}

/**
 * Whether a file can be made beside `path`, checked by making (and removing) one: for a writer
 * that reports its failures in its own terms (SQLite's backup says "unable to open database
 * file"), so the person hears the cause before anything starts.
 */
export function checkWritable(path: string): void {
  const probe = tempBeside(path);
  try {
    writeFileSync(probe, '', { flag: 'wx' });
  } catch (err) {
    throw destinationError(path, err);
  } finally {
    rmSync(probe, { force: true });
  }
}

/** `writeWhole` for text already in memory. */
export function writeWholeSync(
  path: string,
  text: string,
  { mode, durable = false }: WholeOptions = {},
): void {
  if (isSpecial(path)) {
    try {
      writeFileSync(path, text);
    } catch (err) {
      throw destinationError(path, err);
    }
    return;
  }
  const temp = tempBeside(path);
  try {
    writeFileSync(temp, text, { flag: 'wx', mode, flush: durable });
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw destinationError(path, err);
  }
}
