/**
 * The webhook tables' rows on both backends: what they answer as, the event of a change to an
 * endpoint (its secrets redacted), and the body a delivery sends.
 */
import { type FieldChange, REDACTED, type RosterEvent } from '../../contract/events.js';
import { subscribes, type WebhookDelivery, type WebhookEndpoint } from '../../contract/webhooks.js';
import { newObjectId } from '../ids.js';
import type { NewEvent } from '../types.js';
import type { DeliveryRow, NewWebhookRow, WebhookRow } from '../webhook-types.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export const typesOf = (row: Pick<WebhookRow, 'types'>) => row.types.split(',').filter(Boolean);

export function webhookOf(r: NewWebhookRow): WebhookEndpoint {
  return {
    id: r.id,
    url: r.url,
    types: typesOf(r),
    description: r.description,
    enabled: Boolean(r.enabled),
    disabledReason: r.disabled_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function deliveryOf(r: DeliveryRow): WebhookDelivery {
  return {
    id: r.id,
    eventId: r.event_id,
    type: r.type,
    status: r.status,
    attempts: Number(r.attempts),
    lastAttemptAt: iso(r.last_attempt_at),
    lastStatus: r.last_status === null ? null : Number(r.last_status),
    lastError: r.last_error,
    lastDurationMs: r.last_duration_ms === null ? null : Number(r.last_duration_ms),
    nextAttemptAt: iso(r.next_attempt_at),
    createdAt: r.created_at,
  };
}

const SHOWN = ['url', 'types', 'description', 'enabled', 'disabledReason'] as const;

/** `{field: {from, to}}` of what differs; a secret's change is redacted both ways. */
export function webhookChanges(
  before: NewWebhookRow | undefined,
  after: NewWebhookRow | undefined,
): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  const from = before && webhookOf(before);
  const to = after && webhookOf(after);
  for (const field of SHOWN) {
    const a = from?.[field] ?? null;
    const b = to?.[field] ?? null;
    if (JSON.stringify(a) !== JSON.stringify(b)) changes[field] = { from: a, to: b };
  }
  if ((before?.secret ?? null) !== (after?.secret ?? null)) {
    changes.secret = { from: REDACTED, to: REDACTED };
  }
  return changes;
}

export function webhookEvent(
  type: 'webhook.created' | 'webhook.updated' | 'webhook.deleted',
  row: NewWebhookRow,
  changes: Record<string, FieldChange>,
): NewEvent {
  return { type, target: { type: 'webhook', id: row.id }, changes };
}

/** Standard Webhooks' body: the same bytes on every attempt. */
export const deliveryBody = (type: string, timestamp: string, data: unknown) =>
  JSON.stringify({ type, timestamp, data });

/** The delivery rows an event makes for an endpoint (none when it is not subscribed). */
export function deliveriesFor(
  webhook: Pick<WebhookRow, 'id' | 'types'>,
  events: RosterEvent[],
  now: number,
): DeliveryRow[] {
  const types = typesOf(webhook);
  return events
    .filter((e) => subscribes(types, e.type))
    .map((e) => newDelivery(webhook.id, e.id, e.type, deliveryBody(e.type, e.occurredAt, e), now));
}

export function newDelivery(
  webhookId: string,
  eventId: string,
  type: string,
  body: string,
  now: number,
): DeliveryRow {
  return {
    id: newObjectId(now),
    webhook_id: webhookId,
    event_id: eventId,
    type,
    body,
    status: 'pending',
    attempts: 0,
    last_attempt_at: null,
    last_status: null,
    last_error: null,
    last_duration_ms: null,
    next_attempt_at: now,
    created_at: new Date(now).toISOString(),
    retries: 0,
  };
}

export const DELIVERY_COLUMNS = [
  'id',
  'webhook_id',
  'event_id',
  'type',
  'body',
  'status',
  'attempts',
  'next_attempt_at',
  'created_at',
] as const satisfies readonly (keyof DeliveryRow)[];

export const WEBHOOK_COLUMNS = [
  'id',
  'tenant_id',
  'branch_id',
  'url',
  'types',
  'description',
  'enabled',
  'disabled_reason',
  'secret',
  'previous_secret',
  'previous_expires_at',
  'retired_secrets',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof NewWebhookRow)[];

/** The audit of the worker's own changes to an endpoint (disabling it). */
export const WORKER_ACTOR = 'webhooks';
