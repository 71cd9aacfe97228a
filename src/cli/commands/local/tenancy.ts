/** Store look-ups shared by the local admin commands (tenants, branches, tokens). */
import { shellWord } from '../../../import/shell-word.js';
import type { Store } from '../../../store/store.js';
import { CliError, EXIT } from '../../errors.js';

/** The store's error class, imported with the store (the CLI bundle never loads it statically). */
export const isUniqueViolation = async (err: unknown) =>
  err instanceof (await import('../../../store/errors.js')).UniqueViolationError;

export async function findTenant(store: Store, host: string) {
  const tenant = await store.tenants.byHost(host);
  if (!tenant) {
    throw new CliError(
      `no tenant '${host}' (see \`roster tenants list\`; add one with \`roster tenants add ${shellWord(host)}\`)`,
      EXIT.notFound,
    );
  }
  return tenant;
}

export async function findBranch(store: Store, host: string, name: string) {
  const tenant = await findTenant(store, host);
  const branch = await store.branches.byName(tenant.id, name);
  if (!branch) {
    const names = (await store.branches.list(tenant.id)).map((b) => b.name);
    throw new CliError(
      `no branch '${name}' in tenant '${host}' (it has: ${names.join(', ')}); add it with \`roster branches add ${shellWord(name)}\``,
      EXIT.notFound,
    );
  }
  return branch;
}
