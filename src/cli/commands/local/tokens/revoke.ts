/**
 * `roster tokens revoke <id|name>`: a token of a local data dir stops working at once. A name
 * is taken when exactly one live token bears it (names are not unique: `tokens create` allows
 * the same name twice).
 */
import type { Command } from 'commander';
import { type Deps, note } from '../../../context.js';
import { CliError, EXIT, usageError } from '../../../errors.js';
import { type StoreOptions, withStore } from '../../../local-store.js';
import { safeText } from '../../../output/text-safe.js';
import { dataOption } from '../options.js';

export function register(tokens: Command, deps: Deps, runFn = runRevoke) {
  dataOption(
    tokens
      .command('revoke')
      .description('revoke a token at once')
      .argument('<id|name>', 'token id, or the name of one live token'),
  ).action((id: string, opts: StoreOptions) => runFn({ ...opts, id }, deps));
}

export async function runRevoke(opts: StoreOptions & { id: string }, deps: Deps): Promise<void> {
  const revoked = await withStore(opts, deps, async (store) => {
    const { systemAudit } = await import('../../../../store/common/event-rows.js');
    const live = (await store.tokens.list()).filter((t) => !t.revokedAt);
    const named = live.filter((t) => t.name === opts.id);
    const byId = live.some((t) => t.id === opts.id);
    if (!byId && named.length > 1) {
      throw usageError(
        `${named.length} live tokens are named '${safeText(opts.id)}' (${named.map((t) => t.id).join(', ')}); revoke one by its id`,
      );
    }
    const token = byId ? { id: opts.id, name: undefined } : named[0];
    if (
      !token ||
      !(await store.reserve.whenFull(() =>
        store.tokens.revoke(token.id, systemAudit('roster tokens revoke')),
      ))
    ) {
      throw new CliError(
        `no live token with id or name '${safeText(opts.id)}' (see \`roster tokens list\`)`,
        EXIT.notFound,
      );
    }
    return token;
  });
  note(deps.io, `revoked token ${revoked.id}${revoked.name ? ` (${safeText(revoked.name)})` : ''}`);
}
