/**
 * /api/webhooks in the OpenAPI document: the endpoint and delivery schemas and the nine
 * operations (CONTRACT.md, "Webhooks"). Plain JSON, outside the version registry.
 */
import { EVENT_TYPES } from '../../contract/events.js';
import { MAX_WEBHOOK_DESCRIPTION } from '../../contract/webhooks.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhooks/egress.js';
import { type Json, ref } from './openapi-components.js';

const str = { type: 'string' };
const time = { type: 'string', format: 'date-time' };
const nullable = (schema: Json) => ({ anyOf: [schema, { type: 'null' }] });
const requestId = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
const json = (schema: Json) => ({ 'application/json': { schema } });
const answer = (description: string, schema: Json | null, headers: Json = {}) => ({
  description,
  headers: { ...requestId, ...headers },
  ...(schema ? { content: json(schema) } : {}),
});
const errors = (...kinds: string[]) => ({
  ...Object.fromEntries(kinds.map((k) => [k.split(':')[0]!, ref('responses', k.split(':')[1]!)])),
  '4XX': ref('responses', 'ClientError'),
  '5XX': ref('responses', 'ServerError'),
});
const COMMON = ['401:NotLoggedInException', '403:AccessDeniedException'];
const NOT_FOUND = '404:NotFoundException';
const INVALID = '400:ValidationException';

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

export const WEBHOOK_SCHEMAS: Record<string, Json> = {
  Webhook: WEBHOOK,
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

const id = { name: 'id', in: 'path', required: true, description: 'The webhook’s id', schema: str };
const deliveryId = {
  name: 'deliveryId',
  in: 'path',
  required: true,
  description: 'The delivery’s id',
  schema: str,
};
const body = (required: string[], extra: Record<string, Json> = {}) => ({
  required: true,
  content: json({
    type: 'object',
    required,
    additionalProperties: false,
    properties: { url, types, description, ...extra },
  }),
});
const op = (operationId: string, summary: string, rest: Json) => ({
  operationId,
  summary,
  tags: ['Webhooks'],
  ...rest,
});

export const WEBHOOK_PATHS: Record<string, Json> = {
  '/webhooks': {
    get: op('listWebhooks', 'List the branch’s webhooks (never their secrets)', {
      responses: {
        '200': answer('The webhooks', ref('schemas', 'WebhookList')),
        ...errors(...COMMON),
      },
    }),
    post: op('createWebhook', 'Add a webhook; its secret is answered this once', {
      requestBody: body(['url', 'types']),
      responses: {
        '201': answer('Made', ref('schemas', 'WebhookWithSecret'), {
          Location: ref('headers', 'Location'),
        }),
        ...errors(INVALID, ...COMMON),
      },
    }),
  },
  '/webhooks/{id}': {
    get: op('getWebhook', 'Read a webhook (never its secret)', {
      parameters: [id],
      responses: {
        '200': answer('The webhook', ref('schemas', 'Webhook')),
        ...errors(...COMMON, NOT_FOUND),
      },
    }),
    patch: op('updateWebhook', 'Change a webhook’s URL, types, description or enabled', {
      parameters: [id],
      description:
        'Enabling a disabled webhook sends it what happens from then on, not what happened meanwhile.',
      requestBody: body([], { enabled: { type: 'boolean' } }),
      responses: {
        '200': answer('The webhook as changed', ref('schemas', 'Webhook')),
        ...errors(INVALID, ...COMMON, NOT_FOUND),
      },
    }),
    delete: op('deleteWebhook', 'Remove a webhook and its deliveries', {
      parameters: [id],
      responses: { '204': answer('Removed', null), ...errors(...COMMON, NOT_FOUND) },
    }),
  },
  '/webhooks/{id}/rotate-secret': {
    post: op('rotateWebhookSecret', 'A new secret; the old one signs beside it for 24 h', {
      parameters: [id],
      responses: {
        '200': answer(
          'The webhook with its new secret, shown this once',
          ref('schemas', 'WebhookWithSecret'),
        ),
        ...errors(...COMMON, NOT_FOUND),
      },
    }),
  },
  '/webhooks/{id}/test': {
    post: op('testWebhook', 'Send a webhook.test delivery', {
      parameters: [id],
      responses: {
        '201': answer('The delivery, due now', ref('schemas', 'WebhookDelivery')),
        ...errors(...COMMON, NOT_FOUND),
      },
    }),
  },
  '/webhooks/{id}/deliveries': {
    get: op('listWebhookDeliveries', 'The webhook’s latest 100 deliveries, newest first', {
      parameters: [id],
      responses: {
        '200': answer('The deliveries', ref('schemas', 'WebhookDeliveryList')),
        ...errors(...COMMON, NOT_FOUND),
      },
    }),
  },
  '/webhooks/{id}/deliveries/{deliveryId}/retry': {
    post: op('retryWebhookDelivery', 'Send a delivery again now', {
      parameters: [id, deliveryId],
      responses: {
        '200': answer('The delivery, due now', ref('schemas', 'WebhookDelivery')),
        ...errors(...COMMON, NOT_FOUND),
      },
    }),
  },
};
