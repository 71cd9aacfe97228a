/** `roster media list`: one page of media, newest first, or every page with --all. */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { parseNonNegativeInt, parsePositiveInt } from '../../parse.js';
import { fieldsOption, globalsOf } from '../shared/options.js';
import { runPagedList } from '../shared/paged-list.js';
import { mediumView } from './format.js';

export interface ListOptions {
  limit?: number;
  offset?: number;
  all?: boolean;
  /** false with --no-avatars: media named as `users avatar set` names them are left out. */
  avatars?: boolean;
  fields?: string;
  globals: GlobalOptions;
}

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
      .option('--all', 'follow every page')
      .option(
        '--no-avatars',
        'leave out avatar images (media named avatar.<hash>.<image>.<ext> by `users avatar`)',
      ),
  ).action((opts: Omit<ListOptions, 'globals'>, cmd: Command) =>
    runFn({ ...opts, globals: globalsOf(cmd) }, deps),
  );
}

export async function runList(opts: ListOptions, deps: Deps): Promise<void> {
  const view = mediumView(opts.globals, opts.fields, deps, { ids: true });
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const { hashInFileName } = await import('../../avatar/file-name.js');
  // Pages are filtered as they come: a page may then show fewer than --limit media.
  const fetchPage = async (page: { limit?: number; offset?: number }) => {
    const got = await client.listMedia(page);
    if (opts.avatars !== false) return got;
    return { ...got, data: got.data.filter((m) => hashInFileName(m.fileName) === undefined) };
  };
  await runPagedList(deps, view, opts, fetchPage, {
    plural: 'media',
    empty: 'no media yet; add some with `roster media upload <files…>`',
  });
}
