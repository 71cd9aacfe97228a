/** `roster tenants add <host>`: a tenant with its root branch 'main'. */
import type { Command } from 'commander';
import { type Deps, note } from '../../../context.js';
import { CliError, usageError } from '../../../errors.js';
import { type StoreOptions, withStore } from '../../../local-store.js';
import { dataOption } from '../options.js';
import { isUniqueViolation } from '../tenancy.js';

const HOST =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

export function register(tenants: Command, deps: Deps, runFn = runAdd) {
  dataOption(
    tenants
      .command('add')
      .description("add a tenant with its root branch 'main'")
      .argument('<host>', 'host name the tenant answers, e.g. acme.example.com'),
  ).action((host: string, opts: StoreOptions) => runFn({ ...opts, host }, deps));
}

export async function runAdd(opts: StoreOptions & { host: string }, deps: Deps): Promise<void> {
  const normalized = opts.host.trim().toLowerCase();
  if (!HOST.test(normalized)) {
    throw usageError(
      `'${opts.host}' is not a host name (letters, digits, '-' and '.', e.g. acme.example.com)`,
    );
  }
  const tenant = await withStore(opts, deps, async (store) => {
    try {
      return await store.tenants.add(normalized);
    } catch (err) {
      if (await isUniqueViolation(err)) throw new CliError(`tenant '${normalized}' already exists`);
      throw err;
    }
  });
  note(deps.io, `added tenant '${tenant.host}' with branch 'main'`);
}
