/** The store of one data dir: the database and its repositories, opened and closed together. */
import type { Db } from './db.js';
import { openDatabase } from './db.js';
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
  close(): void;
}

export function openStore(dataDir: string): Store {
  const db = openDatabase(dataDir);
  return {
    db,
    dataDir,
    tenants: tenantsRepo(db),
    branches: branchesRepo(db),
    tokens: tokensRepo(db),
    users: usersRepo(db),
    close: () => db.close(),
  };
}
