/** `roster branches add|list`: branches of a tenant in a local data dir. */

import type { Command } from 'commander';
import { type Deps, note } from '../../../context.js';
import type { StoreOptions } from '../../../local-store.js';
import { dataOption, globalFormat } from '../options.js';

const tenantOption = (cmd: Command) => cmd.option('--tenant <host>', 'the tenant host name', '*');

export function register(program: Command, deps: Deps) {
  const branches = program
    .command('branches')
    .description('manage branches of a tenant (a token sees one branch)');

  dataOption(
    tenantOption(
      branches.command('add').description('add a branch').argument('<name>', 'branch name'),
    ),
  ).action(async (name: string, opts: StoreOptions & { tenant: string }) => {
    const { addBranch } = await import('../tenancy.js');
    await addBranch(name, opts, deps);
    note(deps.io, `added branch '${name}' to tenant '${opts.tenant}'`);
  });

  dataOption(tenantOption(branches.command('list').description('list branches'))).action(
    async (opts: StoreOptions & { tenant: string }, cmd: Command) => {
      const { listBranches } = await import('../tenancy.js');
      await listBranches(opts, globalFormat(cmd, deps), deps);
    },
  );
}
