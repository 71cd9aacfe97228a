/**
 * `roster media list`: one page of media, newest first, or every page with --all. `--type` and
 * `--query` filter in the client (the service's list has no filter): the pages are scanned and
 * --limit/--offset count matches.
 */
import { type Command, Option } from 'commander';
import { MEDIUM_TYPES, type Medium, type MediumType } from '../../../contract/medium.js';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { forPeople, listWriter } from '../../output/render.js';
import { parseNonNegativeInt, parsePositiveInt } from '../../parse.js';
import { fieldsOption, globalsOf } from '../shared/options.js';
import { ALL_PAGE_SIZE, runPagedList } from '../shared/paged-list.js';
import { MEDIUM_FIELDS_EXAMPLE, mediumView } from './format.js';

export interface ListOptions {
  limit?: number;
  offset?: number;
  all?: boolean;
  /** false with --no-avatars: media named as `users avatar set` names them are left out. */
  avatars?: boolean;
  type?: MediumType;
  /** Part of the file name, any case. */
  query?: string;
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
        'media per page, at most 1000 (default 100; with --all: 1000); with --type or --query: matches',
        parsePositiveInt,
      )
      .option('--offset <n>', 'skip this many media', parseNonNegativeInt)
      .option('--all', 'follow every page')
      .option(
        '--no-avatars',
        'leave out avatar images (media named avatar.<hash>.<image>.<ext> by `users avatar`)',
      )
      .addOption(
        new Option('--type <type>', 'only media of this type (filtered here)').choices(
          MEDIUM_TYPES,
        ),
      )
      .option('--query <name>', 'only media whose file name contains this, any case'),
    MEDIUM_FIELDS_EXAMPLE,
  ).action((opts: Omit<ListOptions, 'globals'>, cmd: Command) =>
    runFn({ ...opts, globals: globalsOf(cmd) }, deps),
  );
}

export async function runList(opts: ListOptions, deps: Deps): Promise<void> {
  const view = mediumView(opts.globals, opts.fields, deps, { ids: true });
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const { hashInFileName } = await import('../../avatar/file-name.js');
  const shown = (m: Medium) => opts.avatars !== false || hashInFileName(m.fileName) === undefined;
  if (opts.type !== undefined || opts.query !== undefined) {
    const matches = filterOf(opts);
    const out = await listWriter(deps.io, view);
    let skip = opts.offset ?? 0;
    let left = opts.all ? Number.POSITIVE_INFINITY : (opts.limit ?? 100);
    for await (const medium of client.iterateMedia(ALL_PAGE_SIZE)) {
      if (left === 0) break;
      if (!matches(medium) || !shown(medium) || skip-- > 0) continue;
      await out.write(medium);
      left--;
    }
    if ((await out.end()) === 0 && forPeople(view.format)) note(deps.io, 'no media match');
    return;
  }
  // Pages are filtered as they come: with --no-avatars a page may show fewer than --limit media.
  const fetchPage = async (page: { limit?: number; offset?: number }) => {
    const got = await client.listMedia(page);
    return opts.avatars !== false ? got : { ...got, data: got.data.filter(shown) };
  };
  await runPagedList(deps, view, opts, fetchPage, {
    plural: 'media',
    empty: 'no media yet; add some with `roster media upload <files…>`',
  });
}

function filterOf(opts: ListOptions): (m: Medium) => boolean {
  const name = opts.query?.toLowerCase();
  return (m) =>
    (opts.type === undefined || m.resourceInfo.type === opts.type) &&
    (name === undefined || m.fileName.toLowerCase().includes(name));
}
