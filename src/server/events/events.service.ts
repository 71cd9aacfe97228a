/**
 * The event log as the API shows it: a page of the caller's branch in sequence order, its
 * cursor bound to the filters (users/list-cursor.ts's mechanism), and the long poll.
 *
 * `next` is given on every page, an empty one too (then it is the cursor given, or the log's
 * start): a follower passes it on forever. The store lists an event only once every lower one
 * of its tenant has committed (see store/postgres/events.repo.ts), so following `next` never
 * skips or repeats one.
 */
import { AFTER_END, type RosterEvent } from '../../contract/events.js';
import type { Store } from '../../store/store.js';
import type { EventFilter } from '../../store/types.js';
import { AppError, validationError } from '../errors.js';
import type { RequestScope } from '../http/state.js';
import { bindingOfShape, type CursorSeal } from '../users/list-cursor.js';
import type { EventsQuery } from './events-query.js';

/** How often a long poll looks for other replicas' events (its own process's wake it at once). */
export const POLL_INTERVAL_MS = 250;

export interface EventsPage {
  data: RosterEvent[];
  next: string;
  /** Whether more events follow the page already (then `Link: rel="next"`). */
  more: boolean;
}

type Shape = Omit<EventFilter, 'afterSequence' | 'limit'>;

const bindingOf = (f: Shape) =>
  bindingOfShape([
    'events',
    f.branchId,
    f.types ?? null,
    f.targetId ?? null,
    f.run ?? null,
    f.since ?? null,
    f.until ?? null,
  ]);

const invalid = (message: string) => validationError([{ field: 'after', message }]);

function decode(cursors: CursorSeal, shape: Shape, cursor: string): number {
  const [binding, sequence, ...rest] = cursors.open(cursor) ?? [];
  if (
    typeof binding !== 'string' ||
    typeof sequence !== 'number' ||
    !Number.isSafeInteger(sequence) ||
    sequence < 0 ||
    rest.length > 0
  ) {
    throw invalid('is not a cursor this service gave (use the `next` of a previous page)');
  }
  if (binding !== bindingOf(shape)) {
    throw invalid(
      'belongs to another list of events (other filters, or another branch or tenant): repeat the filters of the page that gave it, or start again without `after`',
    );
  }
  return sequence;
}

export interface WaitControl {
  /** Ends a long poll early (the client went away, the server drains). */
  signal: AbortSignal;
  pollMs?: number;
  /**
   * Asked before a poll that waited answers with events: a token revoked meanwhile gets a 401,
   * not what happened after its revocation ("revoked at once" holds for a held request too).
   * Required, so that no route can hold a poll without it.
   */
  stillAuthenticated: () => Promise<boolean>;
}

export function eventsService(store: Store, cursors: CursorSeal) {
  async function list(
    scope: RequestScope,
    q: EventsQuery,
    control?: WaitControl,
  ): Promise<EventsPage> {
    const shape: Shape = {
      branchId: scope.branch.id,
      ...(q.types ? { types: q.types } : {}),
      ...(q.target !== undefined ? { targetId: q.target } : {}),
      ...(q.run !== undefined ? { run: q.run } : {}),
      ...(q.since ? { since: q.since } : {}),
      ...(q.until ? { until: q.until } : {}),
    };
    const after =
      q.after === undefined
        ? undefined
        : q.after === AFTER_END
          ? await endOf(scope.branch.id)
          : decode(cursors, shape, q.after);
    const read = () =>
      store.events.list({
        ...shape,
        limit: q.limit,
        ...(after !== undefined ? { afterSequence: after } : {}),
      });
    let page = await read();
    if (page.rows.length === 0 && q.wait > 0 && control) {
      page = await waitFor(read, q.wait * 1000, control);
    }
    const last = page.rows.at(-1)?.sequence ?? after ?? 0;
    return { data: page.rows, next: cursors.seal(bindingOf(shape), [last]), more: page.more };
  }

  /** The sequence of the branch's newest event (0 in an empty log): where `after=end` stands. */
  async function endOf(branchId: number): Promise<number> {
    const { rows } = await store.events.list({ branchId, limit: 1, newestFirst: true });
    return rows[0]?.sequence ?? 0;
  }

  /**
   * Re-reads until an event is there, `ms` pass or the control's signal fires: woken at once by
   * this process's own writes, and every pollMs for other replicas'.
   */
  async function waitFor(
    read: () => ReturnType<Store['events']['list']>,
    ms: number,
    { signal, pollMs = POLL_INTERVAL_MS, stillAuthenticated }: WaitControl,
  ) {
    const deadline = Date.now() + ms;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0 || signal.aborted) return { rows: [], more: false };
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          unsubscribe();
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(pollMs, left));
        const unsubscribe = store.events.subscribe(done);
        signal.addEventListener('abort', done);
      });
      if (signal.aborted) return { rows: [], more: false };
      const page = await read();
      if (page.rows.length === 0) continue;
      if (!(await stillAuthenticated())) {
        throw new AppError(
          'notLoggedIn',
          'the API token was revoked while this request waited; check the token (`roster tokens list`) and log in with a live one',
        );
      }
      return page;
    }
  }

  return { list };
}

export type EventsService = ReturnType<typeof eventsService>;
