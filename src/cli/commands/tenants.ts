/** `roster tenants add|list`: tenants (host names) of a local data dir. */
import type { Command } from 'commander';
import { type Deps, note } from '../context.js';
import { dataOption, globalFormat } from './local-admin.js';

export function register(program: Command, deps: Deps) {
  const tenants = program
    .command('tenants')
    .description('manage tenants of a local data dir (a tenant is a host name)');

  dataOption(
    tenants
      .command('add')
      .description("add a tenant with its root branch 'main'")
      .argument('<host>', 'host name the tenant answers, e.g. acme.example.com'),
  ).action(async (host: string, opts: { data?: string }) => {
    const { addTenantHost } = await import('./tenancy.js');
    const tenant = await addTenantHost(host, opts, deps);
    note(deps.io, `added tenant '${tenant.host}' with branch 'main'`);
  });

  dataOption(tenants.command('list').description('list tenants')).action(
    async (opts: { data?: string }, cmd: Command) => {
      const { listTenants } = await import('./tenancy.js');
      await listTenants(opts, globalFormat(cmd, deps), deps);
    },
  );
}
