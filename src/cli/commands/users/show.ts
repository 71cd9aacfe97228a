/** `roster users show <id|externalId|email>`: one user (JSON: the v3 user). */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { renderRecord } from '../../output/render.js';
import { showEach } from '../shared/batch.js';
import { expandIds, STDIN_IDS_HELP } from '../shared/ids.js';
import { fieldsOption, globalsOf } from '../shared/options.js';
import { userView } from './format.js';
import { findUser } from './lookup.js';

export interface ShowOptions {
  id: string;
  fields?: string;
  globals: GlobalOptions;
}

export function register(users: Command, deps: Deps, runFn = runShow) {
  fieldsOption(
    users
      .command('show')
      .description('show one user by id, externalId or email (exit 4 when there is none)')
      .argument(
        '<id>',
        `the user id, an externalId or an email; ${STDIN_IDS_HELP} (JSON: an array)`,
      ),
  ).action((id: string, opts: { fields?: string }, cmd: Command) =>
    runFn({ id, ...opts, globals: globalsOf(cmd) }, deps),
  );
}

export async function runShow(opts: ShowOptions, deps: Deps): Promise<void> {
  const view = userView(opts.globals, opts.fields, deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  if (opts.id === '-') {
    const ids = await expandIds([opts.id], deps);
    await showEach(ids, (id) => findUser(client, id), view, { one: 'user', many: 'users' }, deps);
    return;
  }
  await renderRecord(deps.io, view, await findUser(client, opts.id));
}
