/** `roster branches list`: the branches of a tenant in a local data dir. */
import type { Command } from 'commander';
import type { Deps } from '../../../context.js';
import { type StoreOptions, withStore } from '../../../local-store.js';
import { type Format, renderList } from '../../../output/render.js';
import { dataOption, globalFormat, tenantOption } from '../options.js';
import { findTenant } from '../tenancy.js';

export interface ListBranchesOptions extends StoreOptions {
  tenant: string;
  format: Format;
}

export function register(branches: Command, deps: Deps, runFn = runList) {
  dataOption(tenantOption(branches.command('list').description('list branches'))).action(
    (opts: StoreOptions & { tenant: string }, cmd: Command) =>
      runFn({ ...opts, format: globalFormat(cmd, deps) }, deps),
  );
}

export function runList(opts: ListBranchesOptions, deps: Deps): Promise<void> {
  return withStore(opts, deps, async (store) =>
    renderList(
      deps.io,
      opts.format,
      await store.branches.list((await findTenant(store, opts.tenant)).id),
      [
        { header: 'name', value: (b) => b.name },
        { header: 'tenant', value: () => opts.tenant },
        { header: 'created', value: (b) => b.createdAt },
      ],
      (b) => ({ name: b.name, tenant: opts.tenant, createdAt: b.createdAt }),
    ),
  );
}
