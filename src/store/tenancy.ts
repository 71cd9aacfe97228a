/** Tenants with their root branch, and the first-run setup of a data dir. */
import { SCOPES } from '../contract/scopes.js';
import type { Store } from './store.js';
import { DEFAULT_TENANT, ROOT_BRANCH, type Tenant } from './tenants.repo.js';

/** Adds a tenant and its root branch `main` in one transaction. */
export function addTenant(store: Store, host: string): Tenant {
  return store.db.transaction(() => {
    const tenant = store.tenants.add(host);
    store.branches.add(tenant.id, ROOT_BRANCH);
    return tenant;
  })();
}

/**
 * On a fresh data dir: the catch-all tenant `*`, its `main` branch and an admin token with every
 * scope. Returns the token string when it was created (it is never retrievable again).
 */
export function bootstrap(store: Store): { adminToken: string } | undefined {
  return store.db.transaction(() => {
    if (store.tenants.list().length > 0) return undefined;
    const tenant = addTenant(store, DEFAULT_TENANT);
    const branch = store.branches.byName(tenant.id, ROOT_BRANCH)!;
    const { secret } = store.tokens.create(branch.id, 'admin', [...SCOPES]);
    return { adminToken: secret };
  })();
}
