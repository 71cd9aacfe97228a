/** `roster media list`: one page of media, newest first, or every page with --all. */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { note } from '../../context.js';
import { spinner } from '../../output/progress.js';
import { listWriter } from '../../output/render.js';
import { parseNonNegativeInt, parsePositiveInt } from '../../parse.js';
import { fieldsOption, globalsOf } from '../options.js';
import { mediumView } from './format.js';

export interface ListOptions {
  limit?: number;
  offset?: number;
  all?: boolean;
  fields?: string;
  globals: GlobalOptions;
}

/** Page size with --all: the service's maximum, so few round trips. */
export const ALL_PAGE_SIZE = 1000;

export function register(media: Command, deps: Deps, runFn = runList) {
  fieldsOption(
    media
      .command('list')
      .description("list media of the token's branch, newest first (JSON: an array of media)")
      .option(
        '--limit <n>',
        'media per page, at most 1000 (default 100; with --all: 1000)',
        parsePositiveInt,
      )
      .option('--offset <n>', 'skip this many media', parseNonNegativeInt)
      .option('--all', 'follow every page'),
  ).action((opts: Omit<ListOptions, 'globals'>, cmd: Command) =>
    runFn({ ...opts, globals: globalsOf(cmd) }, deps),
  );
}

export async function runList(opts: ListOptions, deps: Deps): Promise<void> {
  const view = mediumView(opts.globals, opts.fields, deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const out = await listWriter(deps.io, view);

  if (opts.all) {
    const { paginate } = await import('../../../client/paginate.js');
    const pages = paginate((page) => client.listMedia(page), {
      pageSize: opts.limit ?? ALL_PAGE_SIZE,
      offset: opts.offset ?? 0,
    });
    // A table prints at the end: meanwhile a spinner on the terminal counts what arrived.
    const progress = view.format === 'table' ? await spinner(deps, 'fetching media…') : undefined;
    let count = 0;
    for await (const medium of pages) {
      await out.write(medium);
      if (++count % 100 === 0) progress?.update(`fetching media… ${count}`);
    }
    progress?.stop();
    await out.end();
    return;
  }
  const page = await client.listMedia({ limit: opts.limit, offset: opts.offset });
  for (const medium of page.data) await out.write(medium);
  await out.end();
  const shown = page.offset + page.data.length;
  if (view.format === 'table' && page.total === 0) {
    note(deps.io, 'no media yet; add some with `roster media upload <files…>`');
  } else if (view.format === 'table' && shown < page.total) {
    note(
      deps.io,
      `showing ${page.offset + 1}–${shown} of ${page.total}; --all for every page, or --offset ${shown}`,
    );
  }
}
