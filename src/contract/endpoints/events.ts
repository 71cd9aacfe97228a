/** The event log (docs/events.md): Roster's own, the platform has none. */
import { API_ERRORS as API, type EndpointDescriptor, ROSTER_ONLY, UNAVAILABLE } from './types.js';

export const EVENT_ENDPOINTS = {
  list: {
    method: 'GET',
    path: '/events',
    scope: ['events:read', 403],
    versions: { accept: [[null, 'v1', 'production', 'json', ROSTER_ONLY]] },
    openapi: {
      operationId: 'listEvents',
      summary: 'List or follow the branch’s events, oldest first',
      description:
        'Every change, in sequence order; `next` continues (always given), `wait` long-polls. A follower passing `next` never misses or repeats an event (docs/events.md).',
      tag: 'Events',
      success: '200',
      body: { schema: 'EventPage' },
      headers: ['Link'],
      query: 'events',
      errors: [...API, 'validation', 'accessDenied', ...UNAVAILABLE],
    },
    client: 'listEvents',
  },
} as const satisfies Record<string, EndpointDescriptor>;
