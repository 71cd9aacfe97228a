/**
 * The PostgreSQL backend: the data shared by every replica. Each store step is one statement or
 * one transaction; a read-decide-write locks its row (`FOR UPDATE`) so nothing interleaves.
 * Resolved credentials are kept only while the database's credentials epoch stays the same,
 * checked on every request: a token revoked through any replica or `roster tokens revoke`
 * fails on the very next request everywhere.
 */
import { SCOPES, type Scope } from '../../contract/scopes.js';
import { type BlobStore, localBlobStore } from '../blobs.js';
import { secureDataDir } from '../permissions.js';
import { redactUrl } from '../redact.js';
import { diskReserve } from '../reserve.js';
import {
  type BranchRow,
  branchOf,
  type TenantRow,
  type TokenRow,
  tenantOf,
  tokenOf,
} from '../rows.js';
import type { Store } from '../store.js';
import { newToken, parseTokenString, secretMatches } from '../token-secret.js';
import {
  type Credentials,
  DEFAULT_TENANT,
  ROOT_BRANCH,
  type Tenant,
  type Token,
} from '../types.js';
import {
  type Client,
  createPool,
  type Pool,
  type PoolOptions,
  prepareDatabase,
  type Queryable,
  query,
  transaction,
} from './db.js';
import { freshRead } from './fresh-read.js';
import { mediaRepo } from './media.repo.js';
import { outboxRepo } from './outbox.repo.js';
import { usersRepo } from './users.repo.js';

export interface PostgresStore extends Store {
  readonly engine: 'postgres';
  /** The pool itself: for tests and the copy from SQLite, never for the service. */
  readonly pool: Pool;
}

/** Caps the credentials cache; a flood of distinct valid tokens just empties it. */
const MAX_CACHED_CREDENTIALS = 10_000;

/** The advisory lock one replica holds while it sweeps media. */
const SWEEP_LOCK = 0x53776570; // "Swep"

/** The advisory lock that makes a first start's bootstrap happen once across replicas. */
const BOOTSTRAP_LOCK = 0x426f6f74; // "Boot"

async function tenantByHost(db: Queryable, host: string) {
  const { rows } = await query<TenantRow>(
    db,
    'SELECT * FROM tenants WHERE lower(host) = lower($1)',
    [host],
  );
  return rows[0] && tenantOf(rows[0]);
}

async function addTenant(client: Client, host: string): Promise<Tenant> {
  const now = new Date().toISOString();
  const { rows } = await query<TenantRow>(
    client,
    'INSERT INTO tenants (host, created_at) VALUES ($1, $2) RETURNING *',
    [host, now],
  );
  const tenant = tenantOf(rows[0]!);
  await query(client, 'INSERT INTO branches (tenant_id, name, created_at) VALUES ($1, $2, $3)', [
    tenant.id,
    ROOT_BRANCH,
    now,
  ]);
  return tenant;
}

async function createToken(db: Queryable, branchId: number, name: string, scopes: Scope[]) {
  const { id, hash, tokenString } = newToken();
  const createdAt = new Date().toISOString();
  await query(
    db,
    `INSERT INTO tokens (id, branch_id, name, scopes, secret_hash, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [id, branchId, name, scopes.join(','), hash, createdAt],
  );
  const token: Token = { id, branchId, name, scopes, createdAt, revokedAt: null };
  return { token, secret: tokenString };
}

export async function openPostgresStore(
  url: string,
  opts: PoolOptions & { dataDir: string },
  blobs: BlobStore = localBlobStore(opts.dataDir),
): Promise<PostgresStore> {
  const permissionWarnings = secureDataDir(opts.dataDir);
  const pool = createPool(url, opts, () => {
    // A dropped idle connection: the pool replaces it; requests meanwhile answer 503.
  });
  try {
    await prepareDatabase(pool, url);
  } catch (err) {
    await pool.end();
    throw err;
  }
  const reserve = diskReserve(opts.dataDir);
  reserve.ensure();

  const setTenantColumn = async (
    column: 'public_url' | 'quota_bytes',
    host: string,
    value: unknown,
  ) => {
    const { rowCount } = await query(
      pool,
      `UPDATE tenants SET ${column} = $1 WHERE lower(host) = lower($2)`,
      [value, host],
    );
    return (rowCount ?? 0) > 0;
  };

  /**
   * The token with its branch and tenant, where that tenant is the one the host resolves to
   * (its own, else the catch-all `*`), and the credentials epoch of the same snapshot: one
   * round trip.
   */
  const lookupCredentials = async (
    host: string,
    parts: { id: string; secret: string },
  ): Promise<{ credentials: Credentials; epoch: number } | undefined> => {
    const { rows } = await query<
      TokenRow & {
        b_id: number;
        b_name: string;
        b_created_at: string;
        t_id: number;
        t_host: string;
        t_created_at: string;
        t_public_url: string | null;
        t_quota_bytes: number | null;
        epoch: number;
      }
    >(
      pool,
      `SELECT tokens.*, b.id AS b_id, b.name AS b_name, b.created_at AS b_created_at,
         t.id AS t_id, t.host AS t_host, t.created_at AS t_created_at,
         t.public_url AS t_public_url, t.quota_bytes AS t_quota_bytes,
         (SELECT value FROM credentials_epoch) AS epoch
       FROM tokens JOIN branches b ON b.id = tokens.branch_id JOIN tenants t ON t.id = b.tenant_id
       WHERE tokens.id = $1 AND tokens.revoked_at IS NULL
         AND t.id = coalesce(
           (SELECT id FROM tenants WHERE lower(host) = lower($2)),
           (SELECT id FROM tenants WHERE host = $3))`,
      [parts.id, host, DEFAULT_TENANT],
    );
    const r = rows[0];
    if (!r || !secretMatches(parts.secret, r.secret_hash)) return undefined;
    return {
      epoch: r.epoch,
      credentials: {
        token: tokenOf(r),
        branch: { id: r.b_id, tenantId: r.t_id, name: r.b_name, createdAt: r.b_created_at },
        tenant: {
          id: r.t_id,
          host: r.t_host,
          createdAt: r.t_created_at,
          publicUrl: r.t_public_url,
          quotaBytes: r.t_quota_bytes,
        },
      },
    };
  };
  // Resolved credentials by (host, token string), each with the epoch it was read at.
  const credentialsCache = new Map<string, { credentials: Credentials; epoch: number }>();
  const currentEpoch = freshRead(
    async () =>
      (await query<{ value: number }>(pool, 'SELECT value FROM credentials_epoch')).rows[0]?.value,
  );

  return {
    engine: 'postgres',
    location: redactUrl(url),
    // Replicas share the database, and an object store if the blobs are in one.
    policy: { sharedDatabase: true, sharedBlobs: blobs.shared },
    pool,
    tenants: {
      async resolve(host) {
        const { rows } = await query<TenantRow>(
          pool,
          `SELECT * FROM tenants WHERE lower(host) = lower($1) OR host = $2
           ORDER BY host = $2 LIMIT 1`,
          [host, DEFAULT_TENANT],
        );
        return rows[0] && tenantOf(rows[0]);
      },
      byHost: (host) => tenantByHost(pool, host),
      async list() {
        const { rows } = await query<TenantRow>(pool, 'SELECT * FROM tenants ORDER BY id');
        return rows.map(tenantOf);
      },
      add: (host) => transaction(pool, (client) => addTenant(client, host)),
      setPublicUrl: (host, url) => setTenantColumn('public_url', host, url),
      setQuota: (host, bytes) => setTenantColumn('quota_bytes', host, bytes),
    },
    branches: {
      async byName(tenantId, name) {
        const { rows } = await query<BranchRow>(
          pool,
          'SELECT * FROM branches WHERE tenant_id = $1 AND name = $2',
          [tenantId, name],
        );
        return rows[0] && branchOf(rows[0]);
      },
      async byId(id) {
        const { rows } = await query<BranchRow>(pool, 'SELECT * FROM branches WHERE id = $1', [id]);
        return rows[0] && branchOf(rows[0]);
      },
      async list(tenantId) {
        const { rows } = await query<BranchRow>(
          pool,
          'SELECT * FROM branches WHERE tenant_id = $1 ORDER BY id',
          [tenantId],
        );
        return rows.map(branchOf);
      },
      async add(tenantId, name) {
        const { rows } = await query<BranchRow>(
          pool,
          'INSERT INTO branches (tenant_id, name, created_at) VALUES ($1, $2, $3) RETURNING *',
          [tenantId, name, new Date().toISOString()],
        );
        return branchOf(rows[0]!);
      },
    },
    tokens: {
      create: (branchId, name, scopes) => createToken(pool, branchId, name, scopes),
      async list() {
        const { rows } = await query<TokenRow & { branch: string; host: string }>(
          pool,
          `SELECT tokens.*, branches.name AS branch, tenants.host AS host FROM tokens
           JOIN branches ON branches.id = tokens.branch_id
           JOIN tenants ON tenants.id = branches.tenant_id
           ORDER BY tokens.created_at, tokens.id`,
        );
        return rows.map((r) => ({ ...tokenOf(r), branch: r.branch, tenant: r.host }));
      },
      async authenticate(tokenString) {
        const parts = parseTokenString(tokenString);
        if (!parts) return undefined;
        const { rows } = await query<TokenRow>(
          pool,
          'SELECT * FROM tokens WHERE id = $1 AND revoked_at IS NULL',
          [parts.id],
        );
        const row = rows[0];
        return row && secretMatches(parts.secret, row.secret_hash) ? tokenOf(row) : undefined;
      },
      async revoke(id) {
        const { rowCount } = await query(
          pool,
          'UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
          [new Date().toISOString(), id],
        );
        return (rowCount ?? 0) > 0;
      },
    },
    credentials: {
      async resolve(host, tokenString) {
        const parts = parseTokenString(tokenString);
        if (!parts) return undefined;
        const key = `${host}\n${tokenString}`;
        const cached = credentialsCache.get(key);
        if (cached) {
          // Exact on every request, whichever replica changed what: the epoch moves in the
          // transaction of any change to tenants, branches or tokens (schema.ts), and the read
          // went out after this request came in (fresh-read.ts).
          if ((await currentEpoch()) === cached.epoch) return cached.credentials;
          credentialsCache.delete(key);
        }
        const found = await lookupCredentials(host, parts);
        if (!found) return undefined;
        if (credentialsCache.size >= MAX_CACHED_CREDENTIALS) credentialsCache.clear();
        credentialsCache.set(key, found);
        return found.credentials;
      },
    },
    users: usersRepo(pool),
    media: mediaRepo(pool),
    meta: {
      async getOrCreate(key, make) {
        const read = async () =>
          (await query<{ value: string }>(pool, 'SELECT value FROM meta WHERE key = $1', [key]))
            .rows[0]?.value;
        const existing = await read();
        if (existing !== undefined) return existing;
        // First writer wins: every replica then signs with the one stored secret.
        await query(
          pool,
          'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
          [key, make()],
        );
        return (await read())!;
      },
    },
    outbox: outboxRepo(pool),
    rateLimits: {
      // One statement: refill by the time passed, then take one if there is one. `allowed`
      // records which happened, so the answer needs no second read.
      async take(key, perSecond, now) {
        const refill = `LEAST($2::float8, b.tokens + GREATEST(0, $3 - b.at) / 1000.0 * $2::float8)`;
        const { rows } = await query<{ tokens: number; allowed: boolean }>(
          pool,
          `INSERT INTO rate_buckets AS b (key, tokens, at, allowed)
           VALUES ($1, CASE WHEN $2::float8 >= 1 THEN $2::float8 - 1 ELSE $2::float8 END, $3, $2::float8 >= 1)
           ON CONFLICT (key) DO UPDATE SET
             tokens = ${refill} - CASE WHEN ${refill} >= 1 THEN 1 ELSE 0 END,
             at = GREATEST(b.at, $3),
             allowed = ${refill} >= 1
           RETURNING tokens, allowed`,
          [key, perSecond, now],
        );
        const { tokens, allowed } = rows[0]!;
        return allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perSecond));
      },
    },
    blobs,
    reserve,
    permissionWarnings,
    bootstrap: () =>
      transaction(pool, async (client) => {
        // Replicas starting at once on an empty database: one bootstraps, the rest see tenants.
        await query(client, 'SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
        const { rows } = await query<{ n: number }>(client, 'SELECT count(*) AS n FROM tenants');
        if (rows[0]!.n > 0) return undefined;
        const tenant = await addTenant(client, DEFAULT_TENANT);
        const { rows: branch } = await query<{ id: number }>(
          client,
          'SELECT id FROM branches WHERE tenant_id = $1 AND name = $2',
          [tenant.id, ROOT_BRANCH],
        );
        const { secret } = await createToken(client, branch[0]!.id, 'admin', [...SCOPES]);
        return { adminToken: secret };
      }),
    async trySweepLock() {
      // Session-level, on a connection of its own, held until released.
      const client = await pool.connect();
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock($1) AS locked',
        [SWEEP_LOCK],
      );
      if (!rows[0]?.locked) {
        client.release();
        return undefined;
      }
      return async () => {
        await client.query('SELECT pg_advisory_unlock($1)', [SWEEP_LOCK]).catch(() => {});
        client.release();
      };
    },
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    async ping() {
      await query(pool, 'SELECT 1');
    },
    async close() {
      await blobs.close();
      await pool.end();
    },
  };
}
