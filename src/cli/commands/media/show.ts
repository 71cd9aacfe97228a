/** `roster media show <id>`: one medium (JSON: the Medium). */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { renderRecord } from '../../output/render.js';
import { showEach } from '../shared/batch.js';
import { expandIds, STDIN_IDS_HELP } from '../shared/ids.js';
import { fieldsOption, globalsOf } from '../shared/options.js';
import { mediumView } from './format.js';

export interface ShowOptions {
  id: string;
  fields?: string;
  globals: GlobalOptions;
}

export function register(media: Command, deps: Deps, runFn = runShow) {
  fieldsOption(
    media
      .command('show')
      .description('show one medium: type, size, dimensions, URLs, preview (exit 4 when none)')
      .argument('<id>', `the medium id; ${STDIN_IDS_HELP} (JSON: an array)`),
  ).action((id: string, opts: { fields?: string }, cmd: Command) =>
    runFn({ id, ...opts, globals: globalsOf(cmd) }, deps),
  );
}

export async function runShow(opts: ShowOptions, deps: Deps): Promise<void> {
  const view = mediumView(opts.globals, opts.fields, deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  if (opts.id === '-') {
    const ids = await expandIds([opts.id], deps);
    await showEach(ids, (id) => client.getMedium(id), view, { one: 'medium', many: 'media' }, deps);
    return;
  }
  await renderRecord(deps.io, view, await client.getMedium(opts.id));
}
