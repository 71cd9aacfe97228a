/** Offset pagination over any list endpoint that answers the `Page` envelope. */
import type { Page } from '../contract/medium.js';

export interface PageRequest {
  limit: number;
  offset: number;
}

/**
 * Yields every item of a paged list, one page request at a time. Stops on a short or empty
 * page or once `offset` reaches `total`. Offsets advance by the items received, so a server
 * that caps `limit` is followed correctly. Items created or removed while paging can shift
 * the pages (offset paging has no snapshot).
 */
export async function* paginate<T>(
  fetchPage: (page: PageRequest) => Promise<Page<T>>,
  opts: { pageSize?: number; offset?: number } = {},
): AsyncGenerator<T, void, undefined> {
  const pageSize = opts.pageSize ?? 100;
  let offset = opts.offset ?? 0;
  for (;;) {
    const page = await fetchPage({ limit: pageSize, offset });
    yield* page.data;
    offset += page.data.length;
    const applied = page.limit > 0 ? Math.min(page.limit, pageSize) : pageSize;
    if (page.data.length === 0 || page.data.length < applied || offset >= page.total) return;
  }
}
