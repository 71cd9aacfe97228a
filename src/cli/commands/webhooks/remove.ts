/** `roster webhooks remove <id>`: deletes an endpoint (its pending deliveries are not sent). */
import type { Command } from 'commander';
import { getWebhook, removeWebhook } from '../../../client/webhooks.js';
import { type Deps, type GlobalOptions, interactive, note } from '../../context.js';
import { safeText } from '../../output/text-safe.js';
import { confirmOrRefuse, globalsOf } from '../shared/options.js';

export interface RemoveOptions {
  id: string;
  dryRun?: boolean;
  globals: GlobalOptions;
}

export function register(webhooks: Command, deps: Deps, runFn = runRemove) {
  webhooks
    .command('remove')
    .description('delete an endpoint; asks first on a terminal, needs --yes otherwise')
    .argument('<id>', 'the webhook id')
    .option('--dry-run', 'name the endpoint that would be removed; remove nothing')
    .action((id: string, opts: { dryRun?: boolean }, cmd: Command) =>
      runFn({ id, dryRun: opts.dryRun, globals: globalsOf(cmd) }, deps),
    );
}

export async function runRemove(opts: RemoveOptions, deps: Deps): Promise<void> {
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const named = async () => {
    const w = await getWebhook(client.http, opts.id);
    return `webhook ${w.id} (${safeText(w.url)})`;
  };
  if (opts.dryRun) {
    note(deps.io, `dry run: would remove ${await named()}; nothing was removed`);
    return;
  }
  // The question names the URL (one GET), only when a person is asked.
  const what = !opts.globals.yes && interactive(deps.io) ? await named() : `webhook ${opts.id}`;
  if (!(await confirmOrRefuse(deps, opts.globals, `Remove ${what}?`, 'webhooks remove'))) {
    note(deps.io, 'nothing removed');
    return;
  }
  await removeWebhook(client.http, opts.id);
  note(deps.io, `removed ${what}`);
}
