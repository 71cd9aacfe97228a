/**
 * The PostgreSQL backend: the data shared by every replica, one repository per table. Each store
 * step is one statement or one transaction; a read-decide-write locks its row (`FOR UPDATE`) so
 * nothing interleaves.
 */

import type { BlobStore } from '../blobs/blob-store.js';
import { localBlobStore } from '../blobs/local.js';
import type { MigrationLog } from '../common/migration.js';
import { createNotifier } from '../common/notifier.js';
import { redactUrl } from '../common/redact.js';
import { secureDataDir } from '../data-dir/permissions.js';
import { diskReserve } from '../data-dir/reserve.js';
import { StoreUnavailableError } from '../errors.js';
import type { Store } from '../store.js';
import { credentialsRepo } from './credentials.repo.js';
import { createPool, type PoolOptions, prepareDatabase, query } from './db.js';
import { eventsRepo } from './events.repo.js';
import { keepPostgresHandle } from './handle.js';
import { bootstrap, sweepLock } from './locks.js';
import { mediaRepo } from './media.repo.js';
import { metaRepo } from './meta.repo.js';
import { outboxRepo } from './outbox.repo.js';
import { rateLimits } from './rate-limits.repo.js';
import { branchesRepo, tenantsRepo } from './tenants.repo.js';
import { tokensRepo } from './tokens.repo.js';
import { usersRepo } from './users.repo.js';
import { webhooksRepo } from './webhooks.repo.js';

export async function openPostgresStore(
  url: string,
  opts: PoolOptions & { dataDir: string; searchSortsUpTo?: number; onMigration?: MigrationLog },
  blobs: BlobStore = localBlobStore(opts.dataDir),
): Promise<Store> {
  const permissionWarnings = secureDataDir(opts.dataDir);
  const pool = createPool(url, opts, () => {
    // A dropped idle connection: the pool replaces it; requests meanwhile answer 503.
  });
  try {
    await prepareDatabase(pool, url, opts.onMigration);
  } catch (err) {
    await pool.end();
    throw err;
  }
  const reserve = diskReserve(opts.dataDir);
  reserve.ensure();
  const notifier = createNotifier();

  const store: Store = {
    engine: 'postgres',
    location: redactUrl(url),
    // Replicas share the database, and an object store if the blobs are in one.
    policy: { sharedDatabase: true, sharedBlobs: blobs.shared, blockingStatements: false },
    tenants: tenantsRepo(pool),
    branches: branchesRepo(pool),
    tokens: tokensRepo(pool, notifier),
    credentials: credentialsRepo(pool),
    users: usersRepo(pool, notifier, opts.searchSortsUpTo),
    media: mediaRepo(pool, notifier),
    events: eventsRepo(pool, notifier),
    webhooks: webhooksRepo(pool, notifier),
    meta: metaRepo(pool),
    outbox: outboxRepo(pool),
    rateLimits: rateLimits(pool),
    blobs,
    reserve,
    permissionWarnings,
    bootstrap: bootstrap(pool),
    trySweepLock: sweepLock(pool),
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    async ping() {
      // A standby, or a primary demoted in a failover, answers but takes no writes: not ready.
      const { rows } = await query<{ readOnly: string }>(
        pool,
        `SELECT current_setting('transaction_read_only') AS "readOnly"`,
      );
      if (rows[0]?.readOnly !== 'off') {
        throw new StoreUnavailableError('database unavailable: it is read-only (a standby?)');
      }
    },
    async close() {
      await blobs.close();
      await pool.end();
    },
  };
  return keepPostgresHandle(store, pool);
}
