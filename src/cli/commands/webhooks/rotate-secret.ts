/**
 * `roster webhooks rotate-secret <id>`: a new secret, printed this once. The old one keeps
 * signing beside it for 24 h (two signatures per delivery), so receivers can switch over.
 */
import type { Command } from 'commander';
import { getWebhook, rotateWebhookSecret } from '../../../client/webhooks.js';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { globalsOf } from '../shared/options.js';
import { printWithSecret, secretNote } from './format.js';

export interface RotateOptions {
  id: string;
  dryRun?: boolean;
  globals: GlobalOptions;
}

export function register(webhooks: Command, deps: Deps, runFn = runRotate) {
  webhooks
    .command('rotate-secret')
    .description('give an endpoint a new secret (printed this once; the old one signs 24 h more)')
    .argument('<id>', 'the webhook id')
    .option('--dry-run', 'name the endpoint whose secret would change; change nothing')
    .action((id: string, opts: { dryRun?: boolean }, cmd: Command) =>
      runFn({ id, dryRun: opts.dryRun, globals: globalsOf(cmd) }, deps),
    );
}

export async function runRotate(opts: RotateOptions, deps: Deps): Promise<void> {
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  if (opts.dryRun) {
    const w = await getWebhook(client.http, opts.id);
    note(deps.io, `dry run: would give webhook ${w.id} a new secret; nothing was changed`);
    return;
  }
  await printWithSecret(await rotateWebhookSecret(client.http, opts.id), opts.globals, deps);
  secretNote(
    deps,
    '; the old secret keeps signing beside it for 24 h, so switch receivers before then',
  );
}
