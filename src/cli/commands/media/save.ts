/** Writing a download safely: where it goes, and temp file → rename, never clobbering. */
import { randomBytes } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { link, open as openFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DestinationError, destinationError, isSpecial } from '../../../files/destination.js';
import { CliError, usageError } from '../../errors.js';

const exists = (path: string) =>
  stat(path).then(
    (s) => s,
    () => undefined,
  );

/** `elsewhere`: how this command is given another place (`--to another path`). */
const refuse = (path: string, elsewhere = '--to another path') =>
  usageError(`${path} already exists; pass --force to overwrite it, or ${elsewhere}`);

/**
 * The file to write: `to` itself, or `name` inside `to` when it is a directory (or ends with a
 * slash), or `name` here. Refuses an existing file unless `force` (checked again at the end).
 */
export async function targetPath(
  to: string | undefined,
  name: string,
  force?: boolean,
  elsewhere?: string,
) {
  let target = to ?? name;
  const found = await exists(target);
  if (to !== undefined && (found?.isDirectory() || /[/\\]$/.test(to))) {
    if (!found) throw new DestinationError(to, 'the directory does not exist');
    target = join(to, name);
  }
  const existing = target === to ? found : await exists(target);
  if (existing?.isDirectory()) throw new DestinationError(target, 'it is a directory');
  // A pipe, a device or a socket is written into, as by `>`: there is no file to clobber.
  if (existing && !existing.isFile()) return target;
  if (!existing && !(await exists(dirname(target)))?.isDirectory()) {
    throw new DestinationError(target, `the directory ${dirname(target)} does not exist`);
  }
  if (existing && !force) throw refuse(target, elsewhere);
  return target;
}

/**
 * Passes bytes on while counting them; past `expected` (the medium's declared size) it fails
 * instead: a server sending more is cut off there, not believed.
 */
export function capAt(
  expected: number | undefined,
  onCount: (bytes: number) => void = () => {},
  outcome = 'nothing was saved',
) {
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (expected !== undefined && bytes > expected) {
        done(new CliError(`the server sent more than the medium's ${expected} bytes; ${outcome}`));
        return;
      }
      onCount(bytes);
      done(null, chunk);
    },
  });
}

/**
 * Streams `open()` into a temp file beside `target`, checks the byte count, then moves it into
 * place: with `force` by rename (atomic replace), else by link (fails if the target appeared
 * meanwhile, so nothing is clobbered). A pipe or a device is written into instead (`isSpecial`):
 * what reached it cannot be taken back. `cleanup` registers the temp file's removal for an exit
 * in between (Ctrl-C). Returns the bytes written.
 */
export async function saveStream(
  open: () => Promise<Readable>,
  target: string,
  opts: {
    force?: boolean;
    expectedBytes?: number;
    onProgress?: (bytes: number) => void;
    /** How the command is given another place, for a refusal (`--to another path`). */
    elsewhere?: string;
  },
  cleanup: (fn: () => void) => void,
): Promise<number> {
  const into = isSpecial(target);
  const temp = into
    ? target
    : join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.part`);
  if (!into) cleanup(() => rmSync(temp, { force: true }));
  let bytes = 0;
  const count = capAt(
    opts.expectedBytes,
    (n) => {
      bytes = n;
      opts.onProgress?.(n);
    },
    into ? `the rest was not written to ${target}` : undefined,
  );
  try {
    const source = await open();
    try {
      // Opened before the pipeline starts: a write stream opening by itself could create the
      // file after a source that failed at once had ended the pipeline and the rm below had run.
      const file = await openFile(temp, into ? 'w' : 'wx');
      await pipeline(source, count, createWriteStream('', { fd: file }));
    } catch (err) {
      // The temp file's failure is the destination's (its name is ours, not the person's).
      throw destinationError(target, err);
    }
    if (opts.expectedBytes !== undefined && bytes !== opts.expectedBytes) {
      const outcome = into ? `all of which went to ${target}` : 'nothing was saved';
      throw new CliError(
        `the download ended after ${bytes} of ${opts.expectedBytes} bytes; ${outcome}, try again`,
      );
    }
    if (into) return bytes;
    try {
      if (opts.force) await rename(temp, target);
      else await linkNoClobber(temp, target, opts.elsewhere);
    } catch (err) {
      throw destinationError(target, err);
    }
    return bytes;
  } finally {
    if (!into) await rm(temp, { force: true });
  }
}

async function linkNoClobber(temp: string, target: string, elsewhere?: string) {
  try {
    await link(temp, target);
    await unlink(temp);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw refuse(target, elsewhere);
    // Some file systems have no hard links: fall back to check-then-rename.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'ENOSYS') throw err;
    if (await exists(target)) throw refuse(target, elsewhere);
    await rename(temp, target);
  }
}
