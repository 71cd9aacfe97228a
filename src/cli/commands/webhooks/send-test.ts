/** `roster webhooks test <id>`: queues a signed `webhook.test` delivery to the endpoint. */
import type { Command } from 'commander';
import { testWebhook } from '../../../client/webhooks.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { globalsOf } from '../shared/options.js';
import { printDelivery, queuedNote } from './format.js';

export interface TestOptions {
  id: string;
  globals: GlobalOptions;
}

export function register(webhooks: Command, deps: Deps, runFn = runTest) {
  webhooks
    .command('test')
    .description('send the endpoint a signed webhook.test delivery (JSON: the delivery)')
    .argument('<id>', 'the webhook id')
    .action((id: string, _opts: unknown, cmd: Command) =>
      runFn({ id, globals: globalsOf(cmd) }, deps),
    );
}

export async function runTest(opts: TestOptions, deps: Deps): Promise<void> {
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  await printDelivery(await testWebhook(client.http, opts.id), opts.globals, deps);
  await queuedNote(client.http, opts.id, deps);
}
