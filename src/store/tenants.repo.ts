import type { Db } from './db.js';
import { rethrowUnique } from './errors.js';

export const DEFAULT_TENANT = '*';
export const ROOT_BRANCH = 'main';

export interface Tenant {
  id: number;
  host: string;
  createdAt: string;
  /** Origin (and path prefix) of every absolute URL this tenant's answers carry, when set. */
  publicUrl: string | null;
  /** Storage quota for media in bytes; null: the server's default. */
  quotaBytes: number | null;
}
export interface Branch {
  id: number;
  tenantId: number;
  name: string;
  createdAt: string;
}

type TenantRow = {
  id: number;
  host: string;
  created_at: string;
  public_url: string | null;
  quota_bytes: number | null;
};
type BranchRow = { id: number; tenant_id: number; name: string; created_at: string };

const tenantOf = (r: TenantRow): Tenant => ({
  id: r.id,
  host: r.host,
  createdAt: r.created_at,
  publicUrl: r.public_url,
  quotaBytes: r.quota_bytes,
});
const branchOf = (r: BranchRow): Branch => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  createdAt: r.created_at,
});

export function tenantsRepo(db: Db, onWrite: () => void = () => {}) {
  const byHost = db.prepare<[string], TenantRow>('SELECT * FROM tenants WHERE host = ?');
  const all = db.prepare<[], TenantRow>('SELECT * FROM tenants ORDER BY id');
  const insert = db.prepare<[string, string]>(
    'INSERT INTO tenants (host, created_at) VALUES (?, ?)',
  );
  const setPublicUrl = db.prepare<[string | null, string]>(
    'UPDATE tenants SET public_url = ? WHERE host = ?',
  );
  const setQuota = db.prepare<[number | null, string]>(
    'UPDATE tenants SET quota_bytes = ? WHERE host = ?',
  );
  return {
    /** The tenant claiming `host`, else the catch-all tenant `*` when it exists. */
    resolve(host: string): Tenant | undefined {
      const row = byHost.get(host) ?? byHost.get(DEFAULT_TENANT);
      return row && tenantOf(row);
    },
    byHost(host: string): Tenant | undefined {
      const row = byHost.get(host);
      return row && tenantOf(row);
    },
    list: (): Tenant[] => all.all().map(tenantOf),
    /** Sets (or with null clears) a tenant's public URL; false when there is no such tenant. */
    setPublicUrl(host: string, url: string | null): boolean {
      const changed = setPublicUrl.run(url, host).changes > 0;
      if (changed) onWrite();
      return changed;
    },
    /** Sets (or with null clears) a tenant's storage quota; false when there is no such tenant. */
    setQuota(host: string, bytes: number | null): boolean {
      const changed = setQuota.run(bytes, host).changes > 0;
      if (changed) onWrite();
      return changed;
    },
    add(host: string): Tenant {
      try {
        insert.run(host, new Date().toISOString());
        onWrite();
        const row = byHost.get(host);
        if (!row) throw new Error(`tenant '${host}' is missing right after its insert`);
        return tenantOf(row);
      } catch (err) {
        rethrowUnique(err);
      }
    },
  };
}

export function branchesRepo(db: Db, onWrite: () => void = () => {}) {
  const byName = db.prepare<[number, string], BranchRow>(
    'SELECT * FROM branches WHERE tenant_id = ? AND name = ?',
  );
  const byId = db.prepare<[number], BranchRow>('SELECT * FROM branches WHERE id = ?');
  const ofTenant = db.prepare<[number], BranchRow>(
    'SELECT * FROM branches WHERE tenant_id = ? ORDER BY id',
  );
  const insert = db.prepare<[number, string, string]>(
    'INSERT INTO branches (tenant_id, name, created_at) VALUES (?, ?, ?)',
  );
  return {
    byName(tenantId: number, name: string): Branch | undefined {
      const row = byName.get(tenantId, name);
      return row && branchOf(row);
    },
    byId(id: number): Branch | undefined {
      const row = byId.get(id);
      return row && branchOf(row);
    },
    list: (tenantId: number): Branch[] => ofTenant.all(tenantId).map(branchOf),
    add(tenantId: number, name: string): Branch {
      const createdAt = new Date().toISOString();
      try {
        const id = insert.run(tenantId, name, createdAt).lastInsertRowid;
        onWrite();
        return { id: Number(id), tenantId, name, createdAt };
      } catch (err) {
        rethrowUnique(err);
      }
    },
  };
}
