/**
 * `/api/webhooks` as a service: endpoints of the caller's branch, their secrets (shown once, at
 * creation and rotation), test deliveries, delivery history and manual retries. Every change
 * goes through the store's one write path with the request's audit.
 */
import { newWebhookSecret } from '../../contract/webhook-signature.js';
import {
  TEST_DELIVERY_TYPE,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookWithSecret,
} from '../../contract/webhooks.js';
import { deliveryBody, deliveryOf, webhookOf } from '../../store/common/webhook-rows.js';
import { newObjectId } from '../../store/ids.js';
import type { Store } from '../../store/store.js';
import { AppError } from '../errors.js';
import type { RequestScope } from '../http/state.js';
import { rotated } from './secrets.js';
import { parseWebhookInput, type UrlCheck } from './webhook-input.js';

/** How many deliveries `GET /{id}/deliveries` lists, newest first. */
export const DELIVERIES_LISTED = 100;

export interface WebhooksServiceDeps {
  store: Store;
  checkUrl: UrlCheck;
  /** A delivery was made due (a test, a retry): the worker looks now. */
  kick?: () => void;
  now?: () => number;
}

const notFound = (id: string) =>
  new AppError('notFound', `no webhook with id '${id}' in this branch (see GET /api/webhooks)`);

export function webhooksService({
  store,
  checkUrl,
  kick = () => {},
  now = Date.now,
}: WebhooksServiceDeps) {
  const repo = store.webhooks;

  async function create(scope: RequestScope, body: unknown): Promise<WebhookWithSecret> {
    const input = parseWebhookInput(body, 'create', checkUrl);
    const at = new Date(now()).toISOString();
    const secret = newWebhookSecret();
    const row = await repo.create(
      {
        id: newObjectId(),
        tenant_id: scope.tenant.id,
        branch_id: scope.branch.id,
        url: input.url!,
        types: input.types!.join(','),
        description: input.description ?? '',
        enabled: true,
        disabled_reason: null,
        secret,
        previous_secret: null,
        previous_expires_at: null,
        retired_secrets: null,
        created_at: at,
        updated_at: at,
      },
      scope.audit,
    );
    return { ...webhookOf(row), secret };
  }

  async function get(scope: RequestScope, id: string): Promise<WebhookEndpoint> {
    const row = await repo.find(scope.branch.id, id);
    if (!row) throw notFound(id);
    return webhookOf(row);
  }

  async function list(scope: RequestScope): Promise<WebhookEndpoint[]> {
    return (await repo.list(scope.branch.id)).map(webhookOf);
  }

  async function update(scope: RequestScope, id: string, body: unknown): Promise<WebhookEndpoint> {
    const input = parseWebhookInput(body, 'update', checkUrl);
    const row = await repo.update(
      scope.branch.id,
      id,
      (w) => ({
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.types !== undefined ? { types: input.types.join(',') } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.enabled !== undefined && input.enabled !== w.enabled
          ? { enabled: input.enabled, disabled_reason: null }
          : {}),
      }),
      scope.audit,
    );
    if (!row) throw notFound(id);
    if (row.enabled) kick();
    return webhookOf(row);
  }

  async function remove(scope: RequestScope, id: string): Promise<void> {
    if (!(await repo.remove(scope.branch.id, id, scope.audit))) throw notFound(id);
  }

  /** A new secret; the one it replaces keeps signing beside it for 24 h (secrets.ts). */
  async function rotate(scope: RequestScope, id: string): Promise<WebhookWithSecret> {
    const secret = newWebhookSecret();
    const row = await repo.update(
      scope.branch.id,
      id,
      (w) => rotated(w, secret, now()),
      scope.audit,
    );
    if (!row) throw notFound(id);
    return { ...webhookOf(row), secret };
  }

  /** A `webhook.test` delivery, sent as any other (signed, retried); not an event of the log. */
  async function test(scope: RequestScope, id: string): Promise<WebhookDelivery> {
    const at = now();
    const eventId = newObjectId(at);
    const timestamp = new Date(at).toISOString();
    const data = { webhook: { id }, message: 'a test delivery from Roster' };
    const row = await repo.addDelivery(
      scope.branch.id,
      id,
      {
        eventId,
        type: TEST_DELIVERY_TYPE,
        body: deliveryBody(TEST_DELIVERY_TYPE, timestamp, data),
      },
      at,
    );
    if (!row) throw notFound(id);
    kick();
    return deliveryOf(row);
  }

  async function deliveries(scope: RequestScope, id: string): Promise<WebhookDelivery[]> {
    const rows = await repo.deliveries(scope.branch.id, id, DELIVERIES_LISTED);
    if (!rows) throw notFound(id);
    return rows.map(deliveryOf);
  }

  async function retry(scope: RequestScope, id: string, deliveryId: string) {
    if (!(await repo.find(scope.branch.id, id))) throw notFound(id);
    const row = await repo.retry(scope.branch.id, id, deliveryId, now());
    if (!row) {
      throw new AppError(
        'notFound',
        `webhook '${id}' has no delivery '${deliveryId}' (see GET /api/webhooks/${id}/deliveries)`,
      );
    }
    kick();
    return deliveryOf(row);
  }

  return { create, get, list, update, remove, rotate, test, deliveries, retry };
}

export type WebhooksService = ReturnType<typeof webhooksService>;
