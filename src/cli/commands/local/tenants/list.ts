/** `roster tenants list`: the tenants of a local data dir with their branches and settings. */
import type { Command } from 'commander';
import type { Deps } from '../../../context.js';
import { type StoreOptions, withStore } from '../../../local-store.js';
import { type Format, renderList } from '../../../output/render.js';
import { dataOption, globalFormat } from '../options.js';

export function register(tenants: Command, deps: Deps, runFn = runList) {
  dataOption(tenants.command('list').description('list tenants')).action(
    (opts: StoreOptions, cmd: Command) => runFn({ ...opts, format: globalFormat(cmd, deps) }, deps),
  );
}

export function runList(opts: StoreOptions & { format: Format }, deps: Deps): Promise<void> {
  return withStore(opts, deps, async (store) => {
    const tenants = await Promise.all(
      (await store.tenants.list()).map(async (t) => ({
        ...t,
        branches: (await store.branches.list(t.id)).map((b) => b.name),
      })),
    );
    // Awaited: the store closes when this returns, and a table or CSV is written after a load.
    await renderList(
      deps.io,
      opts.format,
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
