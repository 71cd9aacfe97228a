/** Run functions of `roster tenants` and `roster branches` (local admin, no HTTP). */
import type { Store } from '../../../store/store.js';
import type { Deps } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import type { StoreOptions } from '../../local-store.js';
import { withStore } from '../../local-store.js';
import { type Format, renderList } from '../../output/render.js';

/** The store's error class, imported with the store (the CLI bundle never loads it statically). */
const isUniqueViolation = async (err: unknown) =>
  err instanceof (await import('../../../store/errors.js')).UniqueViolationError;

const HOST =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const BRANCH = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export async function findTenant(store: Store, host: string) {
  const tenant = await store.tenants.byHost(host);
  if (!tenant) {
    throw new CliError(
      `no tenant '${host}' (see \`roster tenants list\`; add one with \`roster tenants add ${host}\`)`,
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
      `no branch '${name}' in tenant '${host}' (it has: ${names.join(', ')}); add it with \`roster branches add ${name}\``,
      EXIT.notFound,
    );
  }
  return branch;
}

export function addTenantHost(host: string, opts: StoreOptions, deps: Deps) {
  const normalized = host.trim().toLowerCase();
  if (!HOST.test(normalized)) {
    throw usageError(
      `'${host}' is not a host name (letters, digits, '-' and '.', e.g. acme.example.com)`,
    );
  }
  return withStore(opts, deps, async (store) => {
    try {
      return await store.tenants.add(normalized);
    } catch (err) {
      if (await isUniqueViolation(err)) throw new CliError(`tenant '${normalized}' already exists`);
      throw err;
    }
  });
}

export function listTenants(opts: StoreOptions, format: Format, deps: Deps) {
  return withStore(opts, deps, async (store) => {
    const tenants = await Promise.all(
      (await store.tenants.list()).map(async (t) => ({
        ...t,
        branches: (await store.branches.list(t.id)).map((b) => b.name),
      })),
    );
    renderList(
      deps.io,
      format,
      tenants,
      [
        { header: 'host', value: (t) => t.host },
        { header: 'branches', value: (t) => t.branches.join(',') },
        { header: 'public URL', value: (t) => t.publicUrl ?? '' },
        { header: 'quota', value: (t) => (t.quotaBytes === null ? '' : String(t.quotaBytes)) },
        { header: 'created', value: (t) => t.createdAt },
      ],
      (t) => ({
        host: t.host,
        branches: t.branches,
        publicUrl: t.publicUrl,
        quotaBytes: t.quotaBytes,
        createdAt: t.createdAt,
      }),
    );
  });
}

export function addBranch(name: string, opts: StoreOptions & { tenant: string }, deps: Deps) {
  if (!BRANCH.test(name)) {
    throw usageError(`'${name}' is not a branch name (letters, digits, '_', '.', '-'; at most 64)`);
  }
  return withStore(opts, deps, async (store) => {
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
}

export function listBranches(opts: StoreOptions & { tenant: string }, format: Format, deps: Deps) {
  return withStore(opts, deps, async (store) =>
    renderList(
      deps.io,
      format,
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
