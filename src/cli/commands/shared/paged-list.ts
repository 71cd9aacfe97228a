/**
 * `list` verbs (users, media): one page, or with --all every page streamed as it arrives (a
 * table prints at the end, so a spinner counts meanwhile), then a hint on stderr when more
 * pages exist.
 */
import type { Page } from '../../../contract/medium.js';
import { type Deps, note } from '../../context.js';
import { spinner } from '../../output/progress.js';
import { forPeople, listWriter, type View } from '../../output/render.js';

export interface Paging {
  limit?: number;
  offset?: number;
  all?: boolean;
}

/** Page size with --all: the service's maximum, so few round trips. */
export const ALL_PAGE_SIZE = 1000;

export async function runPagedList<T>(
  deps: Deps,
  view: View<T>,
  paging: Paging,
  fetchPage: (page: { limit?: number; offset?: number }) => Promise<Page<T>>,
  text: { plural: string; empty: string },
): Promise<void> {
  const out = await listWriter(deps.io, view);
  if (paging.all) {
    const { paginate } = await import('../../../client/paginate.js');
    const pages = paginate(fetchPage, {
      pageSize: paging.limit ?? ALL_PAGE_SIZE,
      offset: paging.offset ?? 0,
    });
    const fetching = `fetching ${text.plural}…`;
    const progress = forPeople(view.format) ? await spinner(deps, fetching) : undefined;
    let count = 0;
    for await (const row of pages) {
      await out.write(row);
      if (++count % 100 === 0) progress?.update(`${fetching} ${count}`);
    }
    progress?.stop();
    await out.end();
    return;
  }
  const page = await fetchPage({ limit: paging.limit, offset: paging.offset });
  const shown = page.offset + page.data.length;
  // On a terminal an empty list is a sentence, not an empty table.
  if (forPeople(view.format) && page.total === 0) {
    note(deps.io, text.empty);
    return;
  }
  for (const row of page.data) await out.write(row);
  await out.end();
  // Whatever the format: a script piping one page on (`-o ids | … remove -`) must hear that
  // it got only part (on stderr, beside what it reads).
  if (shown < page.total) {
    note(
      deps.io,
      `showing ${page.offset + 1}–${shown} of ${page.totalExact === false ? 'more than ' : ''}${page.total}; --all for every page, or --offset ${shown}`,
    );
  }
}
