/** `roster webhooks show <id>`: one endpoint. */
import type { Command } from 'commander';
import { getWebhook } from '../../../client/webhooks.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { globalsOf } from '../shared/options.js';
import { printWebhook } from './format.js';

export interface ShowOptions {
  id: string;
  globals: GlobalOptions;
}

export function register(webhooks: Command, deps: Deps, runFn = runShow) {
  webhooks
    .command('show')
    .description('show one endpoint (JSON: the webhook)')
    .argument('<id>', 'the webhook id')
    .action((id: string, _opts: unknown, cmd: Command) =>
      runFn({ id, globals: globalsOf(cmd) }, deps),
    );
}

export async function runShow(opts: ShowOptions, deps: Deps): Promise<void> {
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  await printWebhook(await getWebhook(client.http, opts.id), opts.globals, deps);
}
