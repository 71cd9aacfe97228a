import { type BranchRow, branchOf, type TenantRow, tenantOf } from '../common/rows.js';
import { type Branch, DEFAULT_TENANT, type Tenant } from '../types.js';
import type { Db } from './db.js';
import { rethrowUnique } from './errors.js';

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
  const setScimInvitations = db.prepare<[number, string]>(
    'UPDATE tenants SET scim_invitations = ? WHERE host = ?',
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
    /** Whether SCIM-created users get an invitation mail; false when there is no such tenant. */
    setScimInvitations(host: string, on: boolean): boolean {
      const changed = setScimInvitations.run(on ? 1 : 0, host).changes > 0;
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
