/** The event log's part of the OpenAPI document: its schemas, query parameters and operation. */
import {
  DEFAULT_EVENTS_LIMIT,
  EVENT_TYPES,
  MAX_EVENTS_LIMIT,
  MAX_WAIT_SECONDS,
} from '../../contract/events.js';
import type { Json } from './openapi-components.js';

const text = { type: 'string' };
const change = {
  type: 'object',
  required: ['from', 'to'],
  properties: { from: {}, to: {} },
  description: 'A field’s value before and after; a secret’s is "[redacted]" both ways',
};

const EVENT: Json = {
  type: 'object',
  required: ['id', 'sequence', 'type', 'occurredAt', 'actor', 'channel', 'requestId', 'target'],
  properties: {
    id: text,
    sequence: { type: 'integer', description: 'Orders events; commit order within a tenant' },
    type: { enum: [...EVENT_TYPES] },
    occurredAt: { type: 'string', format: 'date-time' },
    actor: {
      type: 'object',
      required: ['type'],
      properties: { type: { enum: ['token', 'system'] }, id: text, name: text },
    },
    channel: { enum: ['api', 'scim', 'system'] },
    requestId: text,
    run: { ...text, description: 'The Roster-Run-Id the request carried' },
    target: {
      type: 'object',
      required: ['type', 'id'],
      properties: {
        type: { enum: ['user', 'medium', 'token', 'webhook'] },
        id: text,
        externalId: text,
        email: text,
      },
    },
    changes: {
      type: 'object',
      additionalProperties: change,
      description: 'By the user-field table’s paths (email, profile.department, status…)',
    },
  },
};

// The page holds the event inline: the document keeps only schemas its paths name.
export const EVENT_SCHEMAS: Record<string, Json> = {
  EventPage: {
    type: 'object',
    required: ['data', 'next'],
    properties: {
      data: { type: 'array', items: EVENT },
      next: {
        ...text,
        description: 'Always present: pass it as `after` to continue (a follower, forever)',
      },
    },
  },
};

const query = (name: string, description: string, schema: Json): Json => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});

export const EVENT_PARAMETERS: Json[] = [
  query(
    'after',
    'The `next` of a previous page (bound to its filters), or `end`: start at the log’s end (a follower’s first request)',
    text,
  ),
  {
    ...query('type', 'Event types or families (`user.*`); repeatable or a comma list', {
      type: 'array',
      items: text,
    }),
    style: 'form',
    explode: true,
  },
  query('target', 'Only events of this user, medium or token id', text),
  query('run', 'Only events of requests that carried this Roster-Run-Id', text),
  query('since', 'Only events at or after this time', { type: 'string', format: 'date-time' }),
  query('until', 'Only events before this time', { type: 'string', format: 'date-time' }),
  query('limit', 'Events per page', {
    type: 'integer',
    minimum: 1,
    maximum: MAX_EVENTS_LIMIT,
    default: DEFAULT_EVENTS_LIMIT,
  }),
  query('wait', 'Seconds to hold an empty answer until an event arrives (long poll)', {
    type: 'integer',
    minimum: 0,
    maximum: MAX_WAIT_SECONDS,
    default: 0,
  }),
];
