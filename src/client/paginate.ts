/** Pagination over any list endpoint that answers the `Page` envelope: by cursor, else offset. */
import type { Page } from '../contract/medium.js';

export interface PageRequest {
  limit: number;
  /** Where the page starts among the items (with `after`: where it is expected to). */
  offset: number;
  /** The previous page's `next` cursor: the page after it (the endpoint then sends no offset). */
  after?: string;
}

export interface PaginateOptions {
  pageSize?: number;
  offset?: number;
  /**
   * Requests kept on their way while a page is read (default 0: one at a time). Only within
   * the `total` the last page announced; the items come in the same order either way.
   */
  ahead?: number;
}

/** Items handed out between two turns of the event loop while a page is on its way (handOut). */
const TURN_EVERY = 100;

/**
 * Yields every item of a paged list, one page request at a time (`ahead`: more). Where a page
 * carries a `next` cursor (Roster's GET /users), the pages after it follow that cursor: items
 * created or removed meanwhile never make it skip or repeat one, and a deep page costs the
 * service what the first did; a cursor is only known once its page arrives, so with `ahead` only
 * the one page after it is asked for while its items are used. Otherwise (the real platform,
 * media) by offset: stops on a short or empty page or once `offset` reaches `total`; offsets
 * advance by the items received, so a server that caps `limit` is followed correctly; items
 * created or removed while paging can shift the pages.
 */
export async function* paginate<T>(
  fetchPage: (page: PageRequest) => Promise<Page<T>>,
  opts: PaginateOptions = {},
): AsyncGenerator<T, void, undefined> {
  const pageSize = opts.pageSize ?? 100;
  const ahead = opts.ahead ?? 0;
  let offset = opts.offset ?? 0;
  // Requests sent ahead, in offset order. Every page but the last is full, so their offsets are
  // known before the answers come; one that turns out wrong is dropped and asked again.
  let inFlight: { offset: number; page: Promise<Page<T>> }[] = [];
  const ask = (at: number) => {
    const page = fetchPage({ limit: pageSize, offset: at });
    page.catch(() => {}); // awaited (and thrown) in order below; a dropped one stays quiet
    inFlight.push({ offset: at, page });
  };
  let after: string | undefined;
  // With `ahead`, the page after a cursor is asked for before this page's items are handed out,
  // so it is on its way while they are used (a cursor is known only from the page before).
  let prefetched: Promise<Page<T>> | undefined;
  const follow = (next: string, at: number) => {
    after = next;
    if (ahead > 0) {
      prefetched = fetchPage({ limit: pageSize, offset: at, after: next });
      prefetched.catch(() => {}); // awaited (and thrown) below
    }
  };
  // undici writes a request a turn or two of the event loop later, and a consumer that uses
  // the items without I/O between them (an export) gives it none until the page is used up:
  // the page asked ahead left only then, and the two sides took turns. So while one is on its
  // way the items are handed out TURN_EVERY at a time with a turn before each (an export of
  // 200,000 users at 15 µs each: 23k -> 35-40k rows/s; bench/HISTORY.md).
  async function* handOut(items: T[], asked: boolean) {
    if (!asked) return yield* items;
    for (let i = 0; i < items.length; i += TURN_EVERY) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      yield* items.slice(i, i + TURN_EVERY);
    }
  }
  for (;;) {
    if (after !== undefined) {
      const page = await (prefetched ?? fetchPage({ limit: pageSize, offset, after }));
      prefetched = undefined;
      const end = offset + page.data.length;
      if (page.next && page.data.length > 0) follow(page.next, end);
      else after = undefined;
      yield* handOut(page.data, prefetched !== undefined);
      offset = end;
      if (after === undefined) return;
      continue;
    }
    if (inFlight[0]?.offset !== offset) {
      inFlight = [];
      ask(offset);
    }
    const page = await inFlight.shift()!.page;
    if (page.next) {
      inFlight = [];
      const end = offset + page.data.length;
      if (page.data.length === 0) return;
      follow(page.next, end);
      yield* handOut(page.data, prefetched !== undefined);
      offset = end;
      continue;
    }
    const applied = page.limit > 0 ? Math.min(page.limit, pageSize) : pageSize;
    const end = offset + page.data.length;
    const last = page.data.length === 0 || page.data.length < applied || end >= page.total;
    // Before the items are handed out, so the next pages are on their way while they are used.
    let next = inFlight.at(-1) ? inFlight.at(-1)!.offset + applied : end;
    let asked = false;
    while (!last && inFlight.length < ahead && next < page.total) {
      ask(next);
      next += applied;
      asked = true;
    }
    yield* handOut(page.data, asked);
    offset = end;
    if (last) return;
  }
}
