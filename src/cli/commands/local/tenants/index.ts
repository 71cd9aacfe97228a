/** `roster tenants add|list|set|quota`: tenants (host names) of a local data dir. */

import type { Command } from 'commander';
import { type Deps, note } from '../../../context.js';
import type { StoreOptions } from '../../../local-store.js';
import { parseQuota } from '../../../parse.js';
import { dataOption, globalFormat } from '../options.js';
import type { TenantSetOptions } from './settings.js';

export function register(program: Command, deps: Deps) {
  const tenants = program
    .command('tenants')
    .description('manage tenants of a local data dir (a tenant is a host name)');

  dataOption(
    tenants
      .command('add')
      .description("add a tenant with its root branch 'main'")
      .argument('<host>', 'host name the tenant answers, e.g. acme.example.com'),
  ).action(async (host: string, opts: StoreOptions) => {
    const { addTenantHost } = await import('../tenancy.js');
    const tenant = await addTenantHost(host, opts, deps);
    note(deps.io, `added tenant '${tenant.host}' with branch 'main'`);
  });

  dataOption(
    tenants
      .command('set')
      .description("change a tenant's settings")
      .argument('<host>', 'the tenant')
      .option(
        '--public-url <url>',
        'origin of every absolute URL the tenant gets (Location, media URLs), e.g. https://intranet.acme.example',
      )
      .option('--no-public-url', "build URLs from the tenant's host name again")
      .addHelpText(
        'after',
        "\nWithout a public URL, a named tenant's links use its own host name (never the Host header).",
      ),
  ).action(async (host: string, opts: TenantSetOptions) => {
    const { setTenant } = await import('./settings.js');
    const url = await setTenant(host, opts, deps);
    note(
      deps.io,
      url ? `tenant '${host}' now links to ${url}` : `tenant '${host}' has no public URL`,
    );
  });

  dataOption(
    tenants
      .command('quota')
      .description("set a tenant's media storage quota (every replica enforces it)")
      .argument('<host>', 'the tenant')
      .argument('<size>', "e.g. 50GB or 500MiB; 'none' for serve's --quota default", parseQuota),
  ).action(async (host: string, size: number | null, opts: StoreOptions) => {
    const { setQuota } = await import('./settings.js');
    await setQuota(host, size, opts, deps);
    note(deps.io, `tenant '${host}' quota: ${size === null ? "serve's default" : `${size} bytes`}`);
  });

  dataOption(tenants.command('list').description('list tenants')).action(
    async (opts: StoreOptions, cmd: Command) => {
      const { listTenants } = await import('../tenancy.js');
      await listTenants(opts, globalFormat(cmd, deps), deps);
    },
  );
}
