/**
 * One `roster serve` per data dir. The lock is an exclusive SQLite transaction held open on a
 * small file of its own (`serve.lock`): the operating system drops it when the process ends,
 * kill -9 included, so a crash never leaves a stale lock. Who holds it (pid, address) is written
 * beside it in `serve.owner` for the message a second server prints.
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export interface DataDirLock {
  /** Records who holds the lock, for the message a second server prints. */
  describeOwner(address: string): void;
  release(): void;
}

/** Another process holds the data dir; `owner` says who, when it could be read. */
export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
  constructor(
    readonly dataDir: string,
    readonly owner: { pid?: number; address?: string },
  ) {
    const who = [owner.pid && `pid ${owner.pid}`, owner.address].filter(Boolean).join(', ');
    super(
      `another roster serve (${who || 'its pid unknown'}) uses the data dir ${dataDir}; stop it first, or give this one its own --data`,
    );
  }
}

export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const ownerFile = join(dataDir, 'serve.owner');
  const lockFile = join(dataDir, 'serve.lock');
  closeSync(openSync(lockFile, 'a', 0o600)); // SQLite would create it with the umask's mode
  const db = new Database(lockFile);
  try {
    db.exec('PRAGMA busy_timeout = 0');
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
    let owner: { pid?: number; address?: string } = {};
    try {
      owner = JSON.parse(readFileSync(ownerFile, 'utf8'));
    } catch {}
    throw new DataDirBusyError(dataDir, owner);
  }
  writeFileSync(ownerFile, JSON.stringify({ pid: process.pid }), { mode: 0o600 });
  return {
    describeOwner(address) {
      writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, address }), { mode: 0o600 });
    },
    release() {
      if (db.open) db.close();
    },
  };
}
