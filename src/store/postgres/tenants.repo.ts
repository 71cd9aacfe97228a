/** Tenants and their branches in PostgreSQL; the same answers as ../sqlite/tenants.repo.ts. */
import { type BranchRow, branchOf, type TenantRow, tenantOf } from '../common/rows.js';
import type { BranchesRepo, TenantsRepo } from '../store.js';
import { DEFAULT_TENANT, ROOT_BRANCH, type Tenant } from '../types.js';
import { type Client, type Pool, type Queryable, query, transaction } from './db.js';

async function tenantByHost(db: Queryable, host: string) {
  const { rows } = await query<TenantRow>(
    db,
    'SELECT * FROM tenants WHERE lower(host) = lower($1)',
    [host],
  );
  return rows[0] && tenantOf(rows[0]);
}

/** Adds a tenant and its root branch, inside the caller's transaction. */
export async function addTenant(client: Client, host: string): Promise<Tenant> {
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

export function tenantsRepo(pool: Pool): TenantsRepo {
  const setColumn = async (
    column: 'public_url' | 'quota_bytes' | 'scim_invitations',
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
  return {
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
    setPublicUrl: (host, url) => setColumn('public_url', host, url),
    setQuota: (host, bytes) => setColumn('quota_bytes', host, bytes),
    setScimInvitations: (host, on) => setColumn('scim_invitations', host, on),
  };
}

export function branchesRepo(pool: Pool): BranchesRepo {
  return {
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
  };
}
