/**
 * Who a request is, in SQLite: the tenant of the host, the token and its branch, kept while the
 * database's credentials version stays the same. The version moves with every write to tenants,
 * branches or tokens through this connection, and with any other process's commit
 * (`PRAGMA data_version`, e.g. `roster tokens revoke` while serving).
 */
import { cachedCredentials } from '../common/credentials-cache.js';
import type { CredentialsRepo } from '../store.js';
import type { Db } from './db.js';
import type { branchesRepo, tenantsRepo } from './tenants.repo.js';
import type { tokensRepo } from './tokens.repo.js';

/**
 * The credentials version: `current()` changes whenever tenants, branches or tokens may have
 * changed. The repositories that write them call `onWrite`.
 */
export function credentialsVersion(db: Db) {
  let localWrites = 0;
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  return {
    current: () => `${dataVersion.get()}:${localWrites}`,
    onWrite: () => {
      localWrites++;
    },
  };
}

/**
 * The version, read once for everyone who asks before the read is made: it is made after the
 * I/O callbacks of the current turn of the event loop (setImmediate), so after each of them
 * asked, and it sees every change committed before any of them asked (the rule of
 * postgres/fresh-read.ts). Under load the requests that arrive together share one read: each
 * read is a read transaction of its own, a file lock taken and released (bench/README.md,
 * "Where a GET by id's time goes").
 */
export function sharedRead<T>(read: () => T): () => Promise<T> {
  let next: Promise<T> | undefined;
  return () => {
    next ??= new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        next = undefined;
        try {
          resolve(read());
        } catch (err) {
          reject(err);
        }
      });
    });
    return next;
  };
}

export function credentialsRepo(
  version: () => string,
  repos: {
    tenants: ReturnType<typeof tenantsRepo>;
    branches: ReturnType<typeof branchesRepo>;
    tokens: ReturnType<typeof tokensRepo>;
  },
): CredentialsRepo {
  const { tenants, branches, tokens } = repos;
  return cachedCredentials(sharedRead(version), async (host, tokenString) => {
    // Synchronous from here: the version read is the one the rows were read at.
    const read = version();
    const tenant = tenants.resolve(host);
    const token = tokens.authenticate(tokenString);
    const branch = token && branches.byId(token.branchId);
    if (!tenant || !token || !branch || branch.tenantId !== tenant.id) return undefined;
    return { credentials: { tenant, branch, token }, version: read };
  });
}
