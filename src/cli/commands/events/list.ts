/** `roster events list`: the audit log, oldest first; one page, or every page with --all. */
import type { Command } from 'commander';
import { listEvents } from '../../../client/events.js';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { forPeople, listWriter } from '../../output/render.js';
import { parsePositiveInt } from '../../parse.js';
import { globalsOf } from '../shared/options.js';
import { type FilterOptions, filterOptions, filterWords, queryOf } from './filters.js';
import { eventView } from './format.js';

export interface ListOptions extends FilterOptions {
  limit?: number;
  all?: boolean;
  after?: string;
  globals: GlobalOptions;
}

export function register(events: Command, deps: Deps, runFn = runList) {
  filterOptions(
    events
      .command('list')
      .description('list events, oldest first (JSON: an array of events)')
      .option('--limit <n>', 'events per page, at most 1000 (default 100)', parsePositiveInt)
      .option('--all', 'follow every page')
      .option('--after <cursor>', 'continue after this cursor (a `next`, or what tail printed)'),
  ).action((opts: Omit<ListOptions, 'globals'>, cmd: Command) =>
    runFn({ ...opts, globals: globalsOf(cmd) }, deps),
  );
}

export async function runList(opts: ListOptions, deps: Deps): Promise<void> {
  const view = eventView(opts.globals, deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const query = await queryOf(opts, client);
  const limit = opts.all ? 1000 : Math.min(opts.limit ?? 100, 1000);
  const out = await listWriter(deps.io, view);
  let after = opts.after;
  for (;;) {
    const page = await listEvents(client.http, { ...query, limit, after });
    for (const e of page.data) await out.write(e);
    after = page.next;
    if (!page.more) break;
    if (!opts.all) {
      note(
        deps.io,
        `more events follow: --all for every page, or continue with: roster events list${filterWords(query)} --after ${after}`,
      );
      break;
    }
  }
  if ((await out.end()) === 0 && forPeople(view.format)) note(deps.io, 'no events');
}
