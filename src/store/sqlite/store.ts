/**
 * The SQLite backend: one data dir's database and its repositories. better-sqlite3 is
 * synchronous, so every store step below runs to its end before anything else can touch the
 * database. Reads answer at once; writes go through `write` (group-commit.ts): those of one turn
 * of the event loop are committed together, each still its own step, and answered once durable.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCOPES } from '../../contract/scopes.js';
import type { BlobStore } from '../blobs/blob-store.js';
import { localBlobStore } from '../blobs/local.js';
import { systemAudit } from '../common/event-rows.js';
import type { MigrationLog } from '../common/migration.js';
import { createNotifier } from '../common/notifier.js';
import { secureDataDir, secureFiles } from '../data-dir/permissions.js';
import { diskReserve } from '../data-dir/reserve.js';
import type { Store } from '../store.js';
import { DEFAULT_TENANT, ROOT_BRANCH } from '../types.js';
import { credentialsRepo, credentialsVersion } from './credentials.repo.js';
import { openDatabase } from './db.js';
import { eventsRepo } from './events.repo.js';
import { DATABASE_FILES } from './files.js';
import { groupCommit } from './group-commit.js';
import { keepSearchThreads, keepSqliteHandle } from './handle.js';
import { mediaRepo } from './media.repo.js';
import { metaRepo } from './meta.repo.js';
import { outboxRepo } from './outbox.repo.js';
import { rateLimits } from './rate-limits.repo.js';
import { searchThreads } from './search-threads.js';
import { branchesRepo, tenantsRepo } from './tenants.repo.js';
import { tokensRepo } from './tokens.repo.js';
import { FEW_MATCHES, usersRepo } from './users.repo.js';
import { webhooksRepo } from './webhooks.repo.js';

/**
 * A search thread's code as built: from the TypeScript sources (tests) there is none beside
 * this module, and searches stay in the main thread unless a test names the build's.
 */
const SEARCH_THREAD = new URL('./search-thread.js', import.meta.url);

/**
 * Opens the database in `dir` (the data dir unless `--database sqlite:<dir>` moved it); the
 * blobs and the disk reserve stay in `dataDir`.
 */
export function openSqliteStore(
  dir: string,
  dataDir = dir,
  blobs: BlobStore = localBlobStore(dataDir),
  {
    searchSortsUpTo = FEW_MATCHES,
    searchWalksUpTo,
    onMigration,
    searchThreads: threadCount = 0,
    searchThreadModule = SEARCH_THREAD,
    onSearchTrouble,
  }: {
    searchSortsUpTo?: number;
    searchWalksUpTo?: number;
    onMigration?: MigrationLog;
    /** Threads that run searches (search-threads.ts); 0: in the main thread. */
    searchThreads?: number;
    /** The compiled search-thread.js (tests running from the sources name the build's). */
    searchThreadModule?: URL;
    /** Told when a search thread fails (search-threads.ts). */
    onSearchTrouble?: (line: string) => void;
  } = {},
): Store {
  // Before SQLite opens anything: its WAL and shared-memory files copy the database's mode.
  const permissionWarnings = [
    ...secureDataDir(dataDir),
    ...(dir === dataDir ? [] : secureDataDir(dir)),
    ...secureFiles(dir, DATABASE_FILES),
  ];
  const db = openDatabase(dir, onMigration);
  const version = credentialsVersion(db);
  const { onWrite } = version;
  const reserve = diskReserve(dataDir);
  reserve.ensure();
  const outbox = outboxRepo(db);
  const tenants = tenantsRepo(db, onWrite);
  const branches = branchesRepo(db, onWrite);
  const events = eventsRepo(db, createNotifier());
  const tokens = tokensRepo(db, events, onWrite);
  const users = usersRepo(db, outbox, events, searchSortsUpTo, searchWalksUpTo);
  const media = mediaRepo(db, events);
  const meta = metaRepo(db);
  const webhooks = webhooksRepo(db, events);
  const write = groupCommit(db);
  const threads =
    threadCount > 0 && existsSync(fileURLToPath(searchThreadModule))
      ? searchThreads({
          count: threadCount,
          module: searchThreadModule,
          data: { file: db.name, fewMatches: searchSortsUpTo, walkBudget: searchWalksUpTo },
          here: users.list,
          ...(onSearchTrouble ? { onTrouble: onSearchTrouble } : {}),
        })
      : undefined;

  const addTenant = (host: string) =>
    db.transaction(() => {
      const tenant = tenants.add(host);
      branches.add(tenant.id, ROOT_BRANCH);
      return tenant;
    })();

  const ping = db.prepare('SELECT 1');

  const store: Store = {
    engine: 'sqlite',
    location: dir,
    // One process serves a data dir (data-dir/lock.ts): nobody else writes rows or files meanwhile.
    policy: { sharedDatabase: false, sharedBlobs: false, blockingStatements: true },
    tenants: {
      resolve: async (host) => tenants.resolve(host),
      byHost: async (host) => tenants.byHost(host),
      list: async () => tenants.list(),
      add: async (host) => addTenant(host),
      setPublicUrl: async (host, url) => tenants.setPublicUrl(host, url),
      setQuota: async (host, bytes) => tenants.setQuota(host, bytes),
      setScimInvitations: async (host, on) => tenants.setScimInvitations(host, on),
    },
    branches: {
      byName: async (tenantId, name) => branches.byName(tenantId, name),
      byId: async (id) => branches.byId(id),
      list: async (tenantId) => branches.list(tenantId),
      add: async (tenantId, name) => branches.add(tenantId, name),
    },
    tokens: {
      create: (branchId, name, scopes, channels, audit) =>
        write(() => tokens.create(branchId, name, scopes, channels, audit)),
      list: async () => tokens.list(),
      authenticate: async (tokenString) => tokens.authenticate(tokenString),
      revoke: (id, audit) => write(() => tokens.revoke(id, audit)),
    },
    credentials: credentialsRepo(version.current, { tenants, branches, tokens }),
    users: {
      find: async (branchId, key) => users.find(branchId, key),
      findBy: async (tenantId, branchId, field, key) =>
        users.findBy(tenantId, branchId, field, key),
      insert: (row, audit, invitation) => write(() => users.insert(row, audit, invitation)),
      update: (branchId, key, decide, audit) =>
        write(() => users.update(branchId, key, decide, audit)),
      list: async (filter) =>
        threads && filter.query !== undefined ? threads.list(filter) : users.list(filter),
    },
    media: {
      insert: (row, audit, quotaBytes) => write(() => media.insert(row, audit, quotaBytes)),
      find: async (branchId, id) => media.find(branchId, id),
      placed: async (id) => media.placed(id),
      list: async (branchId, limit, offset) => media.list(branchId, limit, offset),
      remove: (rowid, audit) => write(() => media.remove(rowid, audit)),
      bytesUsed: async (tenantId) => media.bytesUsed(tenantId),
      allKeys: async () => media.allKeys(),
      dropPreview: (rowid) => write(() => media.dropPreview(rowid)),
    },
    events: {
      list: async (filter) => events.list(filter),
      prune: async (before, limit) => events.prune(before, limit),
      sweep: async (limit, after) => events.sweepTargets(limit, after),
      subscribe: (listener) => events.subscribe(listener),
    },
    webhooks: {
      create: (row, audit) => write(() => webhooks.create(row, audit)),
      list: async (branchId) => webhooks.list(branchId),
      find: async (branchId, id) => webhooks.find(branchId, id),
      update: (branchId, id, decide, audit) =>
        write(() => webhooks.update(branchId, id, decide, audit)),
      remove: (branchId, id, audit) => write(() => webhooks.remove(branchId, id, audit)),
      fanOut: (now, limit) => write(() => webhooks.fanOut(now, limit)),
      addDelivery: (branchId, webhookId, d, now) =>
        write(() => webhooks.addDelivery(branchId, webhookId, d, now)),
      claim: async (request) => webhooks.claim(request),
      settle: (d, s, audit) => write(() => webhooks.settle(d, s, audit)),
      settleAll: (settled, audit) => write(() => webhooks.settleAll(settled, audit)),
      deliveries: async (branchId, webhookId, limit) =>
        webhooks.deliveries(branchId, webhookId, limit),
      retry: (branchId, webhookId, deliveryId, now) =>
        write(() => webhooks.retry(branchId, webhookId, deliveryId, now)),
      nextDue: async () => webhooks.nextDue(),
      prune: async (before, limit) => webhooks.prune(before, limit),
    },
    meta: {
      getOrCreate: async (key, make) => meta.getOrCreate(key, make),
    },
    outbox: {
      due: async (now, _claimMs, limit) => outbox.due(now, limit),
      nextDue: async () => outbox.nextDue(),
      delivered: (id) => write(() => outbox.delivered(id)),
      failed: (id, error, at) => write(() => outbox.failed(id, error, at)),
      pending: async () => outbox.pending(),
      cancelInvitation: (userId) => write(() => outbox.cancelInvitation(userId)),
    },
    rateLimits: rateLimits(),
    blobs,
    reserve,
    permissionWarnings,
    async bootstrap() {
      return db.transaction(() => {
        if (tenants.list().length > 0) return undefined;
        const tenant = addTenant(DEFAULT_TENANT);
        const branch = branches.byName(tenant.id, ROOT_BRANCH)!;
        const { secret } = tokens.create(
          branch.id,
          'admin',
          [...SCOPES],
          ['api'],
          systemAudit('serve'),
        );
        return { adminToken: secret };
      })();
    },
    // One serve per data dir (data-dir/lock.ts): nobody else sweeps it.
    trySweepLock: async () => async () => {},
    async ping() {
      ping.get();
    },
    async close() {
      await threads?.close();
      write.flush(); // what was queued is written, not lost with the connection
      db.close();
      await blobs.close();
    },
  };
  return keepSearchThreads(keepSqliteHandle(store, db), threads);
}
