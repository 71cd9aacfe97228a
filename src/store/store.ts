/** The store of one data dir: the database and its repositories, opened and closed together. */
import { type BlobStore, localBlobStore } from './blobs.js';
import type { Db } from './db.js';
import { DATABASE_FILE, openDatabase } from './db.js';
import { mediaRepo } from './media.repo.js';
import { metaRepo } from './meta.repo.js';
import { outboxRepo } from './outbox.repo.js';
import { secureDataDir, secureFiles } from './permissions.js';
import { type DiskReserve, diskReserve } from './reserve.js';
import { branchesRepo, tenantsRepo } from './tenants.repo.js';
import { tokensRepo } from './tokens.repo.js';
import { usersRepo } from './users.repo.js';

export interface Store {
  db: Db;
  dataDir: string;
  tenants: ReturnType<typeof tenantsRepo>;
  branches: ReturnType<typeof branchesRepo>;
  tokens: ReturnType<typeof tokensRepo>;
  users: ReturnType<typeof usersRepo>;
  media: ReturnType<typeof mediaRepo>;
  meta: ReturnType<typeof metaRepo>;
  /** Messages (invitations) waiting for delivery. */
  outbox: ReturnType<typeof outboxRepo>;
  /** The media files, on local disk under the data dir. */
  blobs: BlobStore;
  /**
   * Changes whenever tenants, branches or tokens may have changed: through this connection, or
   * by any other process committing to the database (`roster tokens revoke` while serving).
   * Lets the server cache credentials without ever serving a revoked token.
   */
  credentialsVersion(): string;
  /** Room kept for deletes and revocations on a full disk (see reserve.ts). */
  reserve: DiskReserve;
  /** What was looser than it should be when the store opened (and has been tightened). */
  permissionWarnings: string[];
  close(): void;
}

export function openStore(dataDir: string): Store {
  // Before SQLite opens anything: its WAL and shared-memory files copy the database's mode.
  const permissionWarnings = [
    ...secureDataDir(dataDir),
    ...secureFiles(dataDir, [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]),
  ];
  const db = openDatabase(dataDir);
  let localWrites = 0;
  const onWrite = () => {
    localWrites++;
  };
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const reserve = diskReserve(dataDir);
  reserve.ensure();
  const outbox = outboxRepo(db);
  return {
    db,
    dataDir,
    tenants: tenantsRepo(db, onWrite),
    branches: branchesRepo(db, onWrite),
    tokens: tokensRepo(db, onWrite),
    credentialsVersion: () => `${dataVersion.get()}:${localWrites}`,
    users: usersRepo(db, outbox),
    outbox,
    media: mediaRepo(db),
    meta: metaRepo(db),
    blobs: localBlobStore(dataDir),
    permissionWarnings,
    reserve,
    close: () => db.close(),
  };
}
