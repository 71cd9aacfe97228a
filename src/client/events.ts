/** GET /api/events: a page of the event log, and the "not offered" a service without it gives. */
import type { RosterEvent } from '../contract/events.js';
import { ApiError, ClientError } from './errors.js';
import type { HttpClient } from './http.js';

export interface EventsQuery {
  /** Types or families (`user.*`), sent as one comma list. */
  types?: string[];
  target?: string;
  run?: string;
  since?: string;
  until?: string;
  after?: string;
  limit?: number;
  /** Seconds the service may hold an empty answer (long poll). */
  wait?: number;
}

export interface EventsPage {
  data: RosterEvent[];
  /** Always given: where to continue (a follower passes it on). */
  next: string;
  /** Whether more events follow this page already (the service's `Link: rel="next"`). */
  more: boolean;
}

/** The service has no event log (the real platform, an older Roster): exit 1, one line. */
export class EventsNotOfferedError extends ClientError {
  override name = 'EventsNotOfferedError';
}

/** GET /api/events; a 404 for the endpoint itself is EventsNotOfferedError. */
export async function listEvents(
  http: HttpClient,
  q: EventsQuery = {},
  /** `once`: no retry by the client (a follower that waits out failures itself). */
  { signal, once }: { signal?: AbortSignal; once?: boolean } = {},
): Promise<EventsPage> {
  try {
    const res = await http.json<Omit<EventsPage, 'more'>>({
      method: 'GET',
      endpoint: '/events',
      query: {
        type: q.types?.join(','),
        target: q.target,
        run: q.run,
        since: q.since,
        until: q.until,
        after: q.after,
        limit: q.limit,
        wait: q.wait,
      },
      signal,
      once,
    });
    const link = res.headers.link;
    return {
      ...res.data,
      more: /\brel="?next"?/.test(Array.isArray(link) ? link.join(',') : (link ?? '')),
    };
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 406)) {
      throw new EventsNotOfferedError(
        `events are not offered by this service (${http.baseUrl} answered ${err.status} to GET /events): it keeps no event log`,
        'GET',
        `${http.baseUrl}/events`,
      );
    }
    throw err;
  }
}
