/** `roster tenants quota <host> <size>`: a tenant's media storage quota. */
import type { Command } from 'commander';
import { type Deps, note } from '../../../context.js';
import { CliError, EXIT } from '../../../errors.js';
import { type StoreOptions, withStore } from '../../../local-store.js';
import { parseQuota } from '../../../parse.js';
import { dataOption } from '../options.js';

export interface QuotaOptions extends StoreOptions {
  host: string;
  /** Bytes, or null for serve's --quota default. */
  size: number | null;
}

export function register(tenants: Command, deps: Deps, runFn = runQuota) {
  dataOption(
    tenants
      .command('quota')
      .description("set a tenant's media storage quota (every replica enforces it)")
      .argument('<host>', 'the tenant')
      .argument('<size>', "e.g. 50GB or 500MiB; 'none' for serve's --quota default", parseQuota),
  ).action((host: string, size: number | null, opts: StoreOptions) =>
    runFn({ ...opts, host, size }, deps),
  );
}

export async function runQuota(opts: QuotaOptions, deps: Deps): Promise<void> {
  const { host, size } = opts;
  await withStore(opts, deps, async (store) => {
    if (!(await store.tenants.setQuota(host.trim().toLowerCase(), size))) {
      throw new CliError(`no tenant '${host}' (see \`roster tenants list\`)`, EXIT.notFound);
    }
  });
  note(deps.io, `tenant '${host}' quota: ${size === null ? "serve's default" : `${size} bytes`}`);
}
