/** `roster webhooks update <id>`: change an endpoint's URL, types, description, or switch it. */
import type { Command } from 'commander';
import { getWebhook, updateWebhook, type WebhookPatch } from '../../../client/webhooks.js';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { usageError } from '../../errors.js';
import { type Changes, change, describeChanges } from '../shared/dry-run.js';
import { globalsOf } from '../shared/options.js';
import { parseTypes, printWebhook, typeOption } from './format.js';

export interface UpdateOptions {
  id: string;
  url?: string;
  type?: string[];
  description?: string;
  enable?: boolean;
  disable?: boolean;
  dryRun?: boolean;
  globals: GlobalOptions;
}

export function register(webhooks: Command, deps: Deps, runFn = runUpdate) {
  typeOption(
    webhooks
      .command('update')
      .description('change an endpoint (JSON: the webhook as it is now)')
      .argument('<id>', 'the webhook id')
      .option('--url <url>', 'a new URL'),
    false,
  )
    .option('--description <text>', 'a new description')
    .option('--enable', 'send deliveries again (after a 410 or a pause)')
    .option('--disable', 'stop sending deliveries, keep the endpoint')
    .option('--dry-run', 'show what would change (each field: now → after); change nothing')
    .action((id: string, opts: Omit<UpdateOptions, 'id' | 'globals'>, cmd: Command) =>
      runFn({ ...opts, id, globals: globalsOf(cmd) }, deps),
    );
}

/** The PATCH body the flags ask for. */
export function patchOf(opts: UpdateOptions): WebhookPatch {
  if (opts.enable && opts.disable) throw usageError('--enable and --disable: pick one');
  const patch: WebhookPatch = {};
  if (opts.url !== undefined) patch.url = opts.url;
  const types = parseTypes(opts.type);
  if (types) patch.types = types;
  if (opts.description !== undefined) patch.description = opts.description;
  if (opts.enable || opts.disable) patch.enabled = Boolean(opts.enable);
  if (Object.keys(patch).length === 0) {
    throw usageError('nothing to change: give --url, --type, --description, --enable or --disable');
  }
  return patch;
}

export async function runUpdate(opts: UpdateOptions, deps: Deps): Promise<void> {
  const patch = patchOf(opts);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  if (!opts.dryRun) {
    await printWebhook(await updateWebhook(client.http, opts.id, patch), opts.globals, deps);
    return;
  }
  const now = await getWebhook(client.http, opts.id);
  const join = (t: string[] | undefined) => t?.join(',');
  const changes: Changes = {
    ...change('url', now.url, patch.url ?? now.url),
    ...change('types', join(now.types), join(patch.types ?? now.types)),
    ...change('description', now.description, patch.description ?? now.description),
    ...change('enabled', now.enabled, patch.enabled ?? now.enabled),
  };
  const { renderOne, resolveFormat } = await import('../../output/render.js');
  const row = { id: now.id, action: Object.keys(changes).length ? 'update' : 'unchanged', changes };
  await renderOne(deps.io, resolveFormat(opts.globals.output, deps.io), row, [
    { header: 'id', value: (r) => r.id },
    { header: 'would', value: (r) => r.action },
    { header: 'changes', value: (r) => describeChanges(r.changes), wrap: true },
  ]);
  note(deps.io, 'dry run: nothing was changed');
}
