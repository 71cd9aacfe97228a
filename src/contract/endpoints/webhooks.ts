/**
 * /api/webhooks (docs/events.md, "Webhooks"): Roster's own, plain JSON in and out. Every
 * operation needs webhooks:write, reads too: an endpoint's URL and its deliveries are its
 * admin's, not every reader's. A token without it is 403 (nothing of the platform's to match).
 */
import type { ErrorKind } from '../errors.js';
import { API_ERRORS as API, type EndpointDescriptor, ROSTER_ONLY, UNAVAILABLE } from './types.js';

const PLAIN_JSON = { accept: [[null, 'v1', 'production', 'json', ROSTER_ONLY]] } as const;
const SCOPE = ['webhooks:write', 403] as const;
/** What reading a webhook's JSON body can add (readJsonBody: no forms, no uploads). */
const BODY: readonly ErrorKind[] = ['validation', 'requestTimeout', 'payloadTooLarge'];
const ONE: readonly ErrorKind[] = [...API, 'accessDenied', 'notFound', ...UNAVAILABLE];

export const WEBHOOK_ENDPOINTS = {
  list: {
    method: 'GET',
    path: '/webhooks',
    scope: SCOPE,
    versions: PLAIN_JSON,
    openapi: {
      operationId: 'listWebhooks',
      summary: 'List the branch’s webhooks (never their secrets)',
      tag: 'Webhooks',
      success: '200',
      body: { schema: 'WebhookList' },
      errors: [...API, 'accessDenied', ...UNAVAILABLE],
    },
    client: 'listWebhooks',
  },
  create: {
    method: 'POST',
    path: '/webhooks',
    scope: SCOPE,
    versions: PLAIN_JSON,
    openapi: {
      operationId: 'createWebhook',
      summary: 'Add a webhook; its secret is answered this once',
      tag: 'Webhooks',
      success: '201',
      body: { schema: 'WebhookWithSecret' },
      jsonBody: 'WebhookCreate',
      headers: ['Location'],
      errors: [...API, ...BODY, 'accessDenied', ...UNAVAILABLE],
    },
    client: 'createWebhook',
  },
  get: {
    method: 'GET',
    path: '/webhooks/{webhookId}',
    scope: SCOPE,
    versions: PLAIN_JSON,
    openapi: {
      operationId: 'getWebhook',
      summary: 'Read a webhook (never its secret)',
      tag: 'Webhooks',
      success: '200',
      body: { schema: 'Webhook' },
      errors: ONE,
    },
    client: 'getWebhook',
  },
  update: {
    method: 'PATCH',
    path: '/webhooks/{webhookId}',
    scope: SCOPE,
    versions: PLAIN_JSON,
    openapi: {
      operationId: 'updateWebhook',
      summary: 'Change a webhook’s URL, types, description or enabled',
      description:
        'Enabling a disabled webhook sends it what happens from then on, not what happened meanwhile.',
      tag: 'Webhooks',
      success: '200',
      body: { schema: 'Webhook' },
      jsonBody: 'WebhookPatch',
      errors: [...ONE, ...BODY],
    },
    client: 'updateWebhook',
  },
  remove: {
    method: 'DELETE',
    path: '/webhooks/{webhookId}',
    scope: SCOPE,
    versions: PLAIN_JSON,
    openapi: {
      operationId: 'deleteWebhook',
      summary: 'Remove a webhook and its deliveries',
      tag: 'Webhooks',
      success: '204',
      body: null,
      errors: ONE,
    },
    client: 'removeWebhook',
  },
  rotateSecret: {
    method: 'POST',
    path: '/webhooks/{webhookId}/rotate-secret',
    scope: SCOPE,
    versions: PLAIN_JSON,
    openapi: {
      operationId: 'rotateWebhookSecret',
      summary: 'A new secret, shown this once; the old one signs beside it for 24 h',
      tag: 'Webhooks',
      success: '200',
      body: { schema: 'WebhookWithSecret' },
      errors: ONE,
    },
    client: 'rotateWebhookSecret',
  },
  test: {
    method: 'POST',
    path: '/webhooks/{webhookId}/test',
    scope: SCOPE,
    versions: PLAIN_JSON,
    openapi: {
      operationId: 'testWebhook',
      summary: 'Send a webhook.test delivery',
      // A delivery made (201) and one made due again (retry, 200): answers with a body are
      // not 202 here.
      tag: 'Webhooks',
      success: '201',
      body: { schema: 'WebhookDelivery' },
      errors: ONE,
    },
    client: 'testWebhook',
  },
  deliveries: {
    method: 'GET',
    path: '/webhooks/{webhookId}/deliveries',
    scope: SCOPE,
    versions: PLAIN_JSON,
    openapi: {
      operationId: 'listWebhookDeliveries',
      summary: 'The webhook’s latest 100 deliveries, newest first',
      tag: 'Webhooks',
      success: '200',
      body: { schema: 'WebhookDeliveryList' },
      errors: ONE,
    },
    client: 'listDeliveries',
  },
  retry: {
    method: 'POST',
    path: '/webhooks/{webhookId}/deliveries/{deliveryId}/retry',
    scope: SCOPE,
    versions: PLAIN_JSON,
    openapi: {
      operationId: 'retryWebhookDelivery',
      summary: 'Send a delivery again now',
      tag: 'Webhooks',
      success: '200',
      body: { schema: 'WebhookDelivery' },
      errors: ONE,
    },
    client: 'retryDelivery',
  },
} as const satisfies Record<string, EndpointDescriptor>;
