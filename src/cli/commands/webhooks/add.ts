/** `roster webhooks add`: a new endpoint; its secret is printed this once. */
import type { Command } from 'commander';
import { createWebhook, type WebhookCreate } from '../../../client/webhooks.js';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { globalsOf } from '../shared/options.js';
import { parseTypes, printWithSecret, secretNote, typeOption } from './format.js';

export interface AddOptions {
  url: string;
  type: string[];
  description?: string;
  dryRun?: boolean;
  globals: GlobalOptions;
}

export function register(webhooks: Command, deps: Deps, runFn = runAdd) {
  typeOption(
    webhooks
      .command('add')
      .description('add an endpoint the service sends events to (prints its secret, this once)')
      .requiredOption('--url <url>', 'where deliveries are POSTed (https://…)'),
    true,
  )
    .option('--description <text>', 'what the endpoint is for')
    .option('--dry-run', 'show what would be added; add nothing')
    .action((opts: Omit<AddOptions, 'globals'>, cmd: Command) =>
      runFn({ ...opts, globals: globalsOf(cmd) }, deps),
    );
}

export async function runAdd(opts: AddOptions, deps: Deps): Promise<void> {
  const body: WebhookCreate = { url: opts.url, types: parseTypes(opts.type)! };
  if (opts.description !== undefined) body.description = opts.description;
  if (opts.dryRun) {
    const { renderOne, resolveFormat } = await import('../../output/render.js');
    const format = resolveFormat(opts.globals.output, deps.io);
    await renderOne(deps.io, format, body, [
      { header: 'url', value: (b) => b.url },
      { header: 'types', value: (b) => b.types.join(',') },
      { header: 'description', value: (b) => b.description ?? '' },
    ]);
    note(deps.io, 'dry run: nothing was added (the service checks the URL when it is added)');
    return;
  }
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const created = await createWebhook(client.http, body);
  await printWithSecret(created, opts.globals, deps);
  secretNote(deps);
}
