/**
 * Room set aside on the data dir's file system. At 100 % full SQLite cannot even delete (a delete
 * appends to the WAL), so the way out of a full disk, deleting media or revoking a token, would
 * fail too. Those operations run through `whenFull`: on a full disk the reserve is given up and
 * the operation tried once more. The reserve is set aside again at start-up and after deletes.
 */
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const RESERVE_FILE = 'reserve';
export const RESERVE_BYTES = 8 * 1024 * 1024;

const isFull = (err: unknown) => {
  const code = (err as { code?: string })?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT';
};

export interface DiskReserve {
  /** Sets the room aside when it is not; false when there is no room for it. */
  ensure(): boolean;
  /** Runs `fn`; when it meets a full disk, gives up the reserve and runs it once more. */
  whenFull<T>(fn: () => Promise<T>): Promise<T>;
}

export function diskReserve(dataDir: string, bytes = RESERVE_BYTES): DiskReserve {
  const path = join(dataDir, RESERVE_FILE);
  const present = () => {
    try {
      return statSync(path).size === bytes;
    } catch {
      return false;
    }
  };
  return {
    ensure() {
      if (present()) return true;
      const chunk = Buffer.alloc(1024 * 1024);
      let fd: number | undefined;
      try {
        fd = openSync(path, 'w', 0o600);
        for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk);
        return true;
      } catch (err) {
        if (!isFull(err)) throw err;
        rmSync(path, { force: true });
        return false;
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    },
    async whenFull(fn) {
      try {
        return await fn();
      } catch (err) {
        if (!isFull(err) || !present()) throw err;
        rmSync(path, { force: true });
        return fn();
      }
    },
  };
}
