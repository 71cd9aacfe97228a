/** `roster webhooks deliveries <id>`: the endpoint's recent deliveries and their last attempt. */
import type { Command } from 'commander';
import { listDeliveries } from '../../../client/webhooks.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { listWriter } from '../../output/render.js';
import { globalsOf } from '../shared/options.js';
import { deliveryView } from './format.js';

export interface DeliveriesOptions {
  id: string;
  globals: GlobalOptions;
}

export function register(webhooks: Command, deps: Deps, runFn = runDeliveries) {
  webhooks
    .command('deliveries')
    .description(
      "an endpoint's recent deliveries, newest first: status, attempts, the last answer or error, the next retry",
    )
    .argument('<id>', 'the webhook id')
    .action((id: string, _opts: unknown, cmd: Command) =>
      runFn({ id, globals: globalsOf(cmd) }, deps),
    );
}

export async function runDeliveries(opts: DeliveriesOptions, deps: Deps): Promise<void> {
  const view = deliveryView(opts.globals, deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const out = await listWriter(deps.io, view);
  for (const d of await listDeliveries(client.http, opts.id)) await out.write(d);
  await out.end();
}
