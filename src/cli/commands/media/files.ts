/** Local files: whether a path can be uploaded, and a safe local name for a download. */
import { type FileHandle, open, stat } from 'node:fs/promises';
import { safeFileName } from '../../../contract/file-name.js';
import { safeText } from '../../../contract/text-safe.js';

export type FileCheck = { ok: true; size: number } | { ok: false; problem: string };

const problemOf = (err: NodeJS.ErrnoException) => {
  if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return 'no such file';
  if (err.code === 'EACCES' || err.code === 'EPERM') return 'permission denied (not readable)';
  return err.message;
};

/**
 * Checks a path before its upload starts, so a missing, unreadable or odd file is reported by
 * name instead of failing halfway through a request. `openFile` is a test seam.
 */
export async function checkFile(
  path: string,
  openFile: (path: string) => Promise<FileHandle> = (p) => open(p, 'r'),
): Promise<FileCheck> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) {
      return {
        ok: false,
        problem: `is a directory; to upload the files in it, pass a quoted glob such as '${safeText(path.replace(/\/+$/, ''))}/*'`,
      };
    }
    if (!info.isFile()) return { ok: false, problem: 'not a regular file' };
    await (await openFile(path)).close();
    return { ok: true, size: info.size };
  } catch (err) {
    return { ok: false, problem: problemOf(err as NodeJS.ErrnoException) };
  }
}

/**
 * A name from the service made safe to create in a local directory: no directories, no
 * controls, no leading dot (hidden file, `..`), no characters or device names Windows refuses,
 * at most 255 UTF-8 bytes with the extension kept; `fallback` when nothing is left.
 */
export function localFileName(name: string, fallback: string): string {
  return safeFileName(name, { fallback, local: true });
}
