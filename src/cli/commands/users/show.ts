/** `roster users show <id|externalId>`: one user (JSON: the v3 user). */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { renderRecord } from '../../output/render.js';
import { fieldsOption, globalsOf } from '../shared/options.js';
import { userView } from './format.js';

export interface ShowOptions {
  id: string;
  fields?: string;
  globals: GlobalOptions;
}

export function register(users: Command, deps: Deps, runFn = runShow) {
  fieldsOption(
    users
      .command('show')
      .description('show one user by id or externalId (exit 4 when there is none)')
      .argument('<id>', 'the user id, or an externalId'),
  ).action((id: string, opts: { fields?: string }, cmd: Command) =>
    runFn({ id, ...opts, globals: globalsOf(cmd) }, deps),
  );
}

export async function runShow(opts: ShowOptions, deps: Deps): Promise<void> {
  const view = userView(opts.globals, opts.fields, deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  await renderRecord(deps.io, view, await client.getUser(opts.id));
}
