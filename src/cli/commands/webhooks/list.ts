/** `roster webhooks list`: the branch's endpoints (never their secrets). */
import type { Command } from 'commander';
import { listWebhooks } from '../../../client/webhooks.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { listWriter } from '../../output/render.js';
import { globalsOf } from '../shared/options.js';
import { webhookView } from './format.js';

export interface ListOptions {
  globals: GlobalOptions;
}

export function register(webhooks: Command, deps: Deps, runFn = runList) {
  webhooks
    .command('list')
    .description('list the endpoints (JSON: an array of webhooks)')
    .action((_opts: unknown, cmd: Command) => runFn({ globals: globalsOf(cmd) }, deps));
}

export async function runList(opts: ListOptions, deps: Deps): Promise<void> {
  const view = webhookView(opts.globals, deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const out = await listWriter(deps.io, view);
  for (const w of await listWebhooks(client.http)) await out.write(w);
  await out.end();
}
