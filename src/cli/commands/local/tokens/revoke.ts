/** `roster tokens revoke <id>`: a token of a local data dir stops working at once. */
import type { Command } from 'commander';
import { type Deps, note } from '../../../context.js';
import { CliError, EXIT } from '../../../errors.js';
import { type StoreOptions, withStore } from '../../../local-store.js';
import { dataOption } from '../options.js';

export function register(tokens: Command, deps: Deps, runFn = runRevoke) {
  dataOption(
    tokens.command('revoke').description('revoke a token at once').argument('<id>', 'token id'),
  ).action((id: string, opts: StoreOptions) => runFn({ ...opts, id }, deps));
}

export async function runRevoke(opts: StoreOptions & { id: string }, deps: Deps): Promise<void> {
  const { id } = opts;
  await withStore(opts, deps, async (store) => {
    const { systemAudit } = await import('../../../../store/common/event-rows.js');
    if (
      !(await store.reserve.whenFull(() =>
        store.tokens.revoke(id, systemAudit('roster tokens revoke')),
      ))
    ) {
      throw new CliError(
        `no live token with id '${id}' (see \`roster tokens list\`)`,
        EXIT.notFound,
      );
    }
  });
  note(deps.io, `revoked token ${id}`);
}
