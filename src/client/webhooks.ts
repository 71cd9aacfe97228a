/**
 * /api/webhooks: one function per operation, and the "not offered" a service without webhooks
 * gives (the real platform, an older Roster). A 404 to the collection itself means that; a 404
 * for one webhook or delivery is a plain not-found (exit 4), told apart by one GET of the
 * collection, made only after such a 404.
 */
import type { WEBHOOK_ENDPOINTS } from '../contract/endpoints/index.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookWithSecret } from '../contract/webhooks.js';
import { ApiError, ClientError } from './errors.js';
import type { HttpClient } from './http.js';
import type { HttpMethod } from './types.js';

export interface WebhookCreate {
  url: string;
  types: string[];
  description?: string;
}

export interface WebhookPatch {
  url?: string;
  types?: string[];
  description?: string;
  enabled?: boolean;
}

export class WebhooksNotOfferedError extends ClientError {
  override name = 'WebhooksNotOfferedError';
}

const notOffered = (err: unknown) =>
  err instanceof ApiError && (err.status === 404 || err.status === 405 || err.status === 406);

function notOfferedError(http: HttpClient, method: string, status: number) {
  return new WebhooksNotOfferedError(
    `webhooks are not offered by this service (${http.baseUrl} answered ${status} to ${method} /webhooks): it sends no webhooks`,
    method,
    `${http.baseUrl}/webhooks`,
  );
}

type WebhookPath = (typeof WEBHOOK_ENDPOINTS)[keyof typeof WEBHOOK_ENDPOINTS]['path'];

async function call<T>(
  http: HttpClient,
  method: HttpMethod,
  endpoint: WebhookPath,
  params: Record<string, string> = {},
  json?: unknown,
): Promise<T> {
  try {
    const res = await http.json<T>({
      method,
      endpoint,
      params,
      ...(json === undefined ? {} : { json }),
    });
    return res.data;
  } catch (err) {
    if (!notOffered(err)) throw err;
    const status = (err as ApiError).status;
    if (endpoint === '/webhooks') throw notOfferedError(http, method, status);
    // One webhook's 404: not offered, or no such webhook? The collection says.
    try {
      await http.json({ method: 'GET', endpoint: '/webhooks', once: true });
    } catch (probe) {
      if (notOffered(probe)) throw notOfferedError(http, 'GET', (probe as ApiError).status);
    }
    throw err;
  }
}

/** GET /webhooks: every endpoint of the token's branch (never a secret). */
export const listWebhooks = async (http: HttpClient) =>
  (await call<{ data: WebhookEndpoint[] }>(http, 'GET', '/webhooks')).data;

export const getWebhook = (http: HttpClient, webhookId: string) =>
  call<WebhookEndpoint>(http, 'GET', '/webhooks/{webhookId}', { webhookId });

/** POST /webhooks: the endpoint with its secret, which the service shows this once. */
export const createWebhook = (http: HttpClient, body: WebhookCreate) =>
  call<WebhookWithSecret>(http, 'POST', '/webhooks', {}, body);

export const updateWebhook = (http: HttpClient, webhookId: string, patch: WebhookPatch) =>
  call<WebhookEndpoint>(http, 'PATCH', '/webhooks/{webhookId}', { webhookId }, patch);

export const removeWebhook = async (http: HttpClient, webhookId: string): Promise<void> => {
  await call<undefined>(http, 'DELETE', '/webhooks/{webhookId}', { webhookId });
};

/** A new secret (shown this once); the old one keeps signing beside it for 24 h. */
export const rotateWebhookSecret = (http: HttpClient, webhookId: string) =>
  call<WebhookWithSecret>(http, 'POST', '/webhooks/{webhookId}/rotate-secret', { webhookId });

/** Queues a `webhook.test` delivery; the worker sends it as any other. */
export const testWebhook = (http: HttpClient, webhookId: string) =>
  call<WebhookDelivery>(http, 'POST', '/webhooks/{webhookId}/test', { webhookId });

/** The endpoint's recent deliveries, newest first, with their last attempt. */
export const listDeliveries = async (http: HttpClient, webhookId: string) =>
  (
    await call<{ data: WebhookDelivery[] }>(http, 'GET', '/webhooks/{webhookId}/deliveries', {
      webhookId,
    })
  ).data;

/** Makes a delivery due now again (a failed or given-up one). */
export const retryDelivery = (http: HttpClient, webhookId: string, deliveryId: string) =>
  call<WebhookDelivery>(http, 'POST', '/webhooks/{webhookId}/deliveries/{deliveryId}/retry', {
    webhookId,
    deliveryId,
  });
