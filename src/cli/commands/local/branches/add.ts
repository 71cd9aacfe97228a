/** `roster branches add <name>`: a branch of a tenant in a local data dir. */
import type { Command } from 'commander';
import { type Deps, note } from '../../../context.js';
import { CliError, usageError } from '../../../errors.js';
import { type StoreOptions, withStore } from '../../../local-store.js';
import { dataOption, tenantOption } from '../options.js';
import { findTenant, isUniqueViolation } from '../tenancy.js';

const BRANCH = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface AddBranchOptions extends StoreOptions {
  name: string;
  tenant: string;
}

export function register(branches: Command, deps: Deps, runFn = runAdd) {
  dataOption(
    tenantOption(
      branches.command('add').description('add a branch').argument('<name>', 'branch name'),
    ),
  ).action((name: string, opts: StoreOptions & { tenant: string }) =>
    runFn({ ...opts, name }, deps),
  );
}

export async function runAdd(opts: AddBranchOptions, deps: Deps): Promise<void> {
  const { name } = opts;
  if (!BRANCH.test(name)) {
    throw usageError(`'${name}' is not a branch name (letters, digits, '_', '.', '-'; at most 64)`);
  }
  await withStore(opts, deps, async (store) => {
    const tenant = await findTenant(store, opts.tenant);
    try {
      return await store.branches.add(tenant.id, name);
    } catch (err) {
      if (await isUniqueViolation(err)) {
        throw new CliError(`branch '${name}' already exists in tenant '${opts.tenant}'`);
      }
      throw err;
    }
  });
  note(deps.io, `added branch '${name}' to tenant '${opts.tenant}'`);
}
