/**
 * /api/webhooks' schemas in the OpenAPI document: an endpoint, its secret, its deliveries and
 * the bodies that make and change one. The operations are their declarations'
 * (contract/endpoints/webhooks.ts), as every registry endpoint's are.
 */
import { EVENT_TYPES } from '../../contract/events.js';
import { MAX_WEBHOOK_DESCRIPTION } from '../../contract/webhooks.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhooks/egress.js';
import { type Json, ref } from './openapi-components.js';

const str = { type: 'string' };
const time = { type: 'string', format: 'date-time' };
const nullable = (schema: Json) => ({ anyOf: [schema, { type: 'null' }] });
const types = {
  type: 'array',
  minItems: 1,
  items: str,
  description: `Event types or families (\`user.*\`): ${EVENT_TYPES.join(', ')}`,
};
const url = {
  type: 'string',
  format: 'uri',
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  description:
    'https:// (http:// only with serve --webhooks-allow-http); no credentials; not a loopback, private, link-local, CGNAT or multicast address unless serve --webhooks-allow names its range',
};
const description = { type: 'string', maxLength: MAX_WEBHOOK_DESCRIPTION };

const WEBHOOK: Json = {
  type: 'object',
  required: [
    'id',
    'url',
    'types',
    'description',
    'enabled',
    'disabledReason',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: str,
    url: str,
    types: { type: 'array', items: str },
    description: str,
    enabled: { type: 'boolean' },
    disabledReason: {
      ...nullable(str),
      description: 'Why the service disabled it (410 Gone, five days of failures)',
    },
    createdAt: time,
    updatedAt: time,
  },
};

const change = (required: string[], extra: Record<string, Json> = {}): Json => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties: { url, types, description, ...extra },
});

export const WEBHOOK_SCHEMAS: Record<string, Json> = {
  Webhook: WEBHOOK,
  WebhookCreate: change(['url', 'types']),
  WebhookPatch: change([], { enabled: { type: 'boolean' } }),
  WebhookWithSecret: {
    allOf: [
      ref('schemas', 'Webhook'),
      {
        type: 'object',
        required: ['secret'],
        properties: {
          secret: {
            type: 'string',
            pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
            description: 'The signing secret, shown this once: store it now',
          },
        },
      },
    ],
  },
  WebhookList: {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: ref('schemas', 'Webhook') } },
  },
  WebhookDelivery: {
    type: 'object',
    required: [
      'id',
      'eventId',
      'type',
      'status',
      'attempts',
      'lastAttemptAt',
      'lastStatus',
      'lastError',
      'lastDurationMs',
      'nextAttemptAt',
      'createdAt',
    ],
    properties: {
      id: str,
      eventId: { ...str, description: 'The webhook-id header: the same on every attempt' },
      type: str,
      status: { enum: ['pending', 'delivered', 'failed'] },
      attempts: { type: 'integer', minimum: 0 },
      lastAttemptAt: nullable(time),
      lastStatus: nullable({ type: 'integer' }),
      lastError: nullable(str),
      lastDurationMs: nullable({ type: 'integer' }),
      nextAttemptAt: { ...nullable(time), description: 'null once delivered or given up' },
      createdAt: time,
    },
  },
  WebhookDeliveryList: {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: ref('schemas', 'WebhookDelivery') } },
  },
};
