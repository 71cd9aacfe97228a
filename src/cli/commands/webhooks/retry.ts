/** `roster webhooks retry <id> <deliveryId>`: makes a delivery due again now. */
import type { Command } from 'commander';
import { retryDelivery } from '../../../client/webhooks.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { globalsOf } from '../shared/options.js';
import { printDelivery, queuedNote } from './format.js';

export interface RetryOptions {
  id: string;
  deliveryId: string;
  globals: GlobalOptions;
}

export function register(webhooks: Command, deps: Deps, runFn = runRetry) {
  webhooks
    .command('retry')
    .description('send a delivery again now (a failed or given-up one; JSON: the delivery)')
    .argument('<id>', 'the webhook id')
    .argument('<deliveryId>', 'the delivery id (from webhooks deliveries)')
    .action((id: string, deliveryId: string, _opts: unknown, cmd: Command) =>
      runFn({ id, deliveryId, globals: globalsOf(cmd) }, deps),
    );
}

export async function runRetry(opts: RetryOptions, deps: Deps): Promise<void> {
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  await printDelivery(
    await retryDelivery(client.http, opts.id, opts.deliveryId),
    opts.globals,
    deps,
  );
  await queuedNote(client.http, opts.id, deps);
}
