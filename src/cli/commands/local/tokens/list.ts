/** `roster tokens list`: the tokens of a local data dir, never their secrets. */
import type { Command } from 'commander';
import type { Deps } from '../../../context.js';
import { type StoreOptions, withStore } from '../../../local-store.js';
import { type Format, renderList } from '../../../output/render.js';
import { dataOption, globalFormat } from '../options.js';

export function register(tokens: Command, deps: Deps, runFn = runList) {
  dataOption(tokens.command('list').description('list tokens (never their secrets)')).action(
    (opts: StoreOptions, cmd: Command) => runFn({ ...opts, format: globalFormat(cmd, deps) }, deps),
  );
}

export function runList(opts: StoreOptions & { format: Format }, deps: Deps): Promise<void> {
  return withStore(opts, deps, async (store) =>
    renderList(deps.io, opts.format, await store.tokens.list(), [
      { header: 'id', value: (t) => t.id },
      { header: 'name', value: (t) => t.name },
      { header: 'tenant', value: (t) => t.tenant },
      { header: 'branch', value: (t) => t.branch },
      // Wrapped, never cut: a cut list of every scope looked like a shorter one.
      { header: 'scopes', keep: 3, wrap: true, value: (t) => t.scopes.join(', ') },
      // What --for made it for; tokens made before --for existed work on both (api,scim).
      { header: 'for', value: (t) => t.channels.join(',') },
      { header: 'created', value: (t) => t.createdAt },
      { header: 'revoked', value: (t) => t.revokedAt ?? '' },
    ]),
  );
}
