/**
 * Webhooks' contract (CONTRACT.md, "Events, audit log and webhooks"): an endpoint and a delivery
 * as `/api/webhooks` answers them, the secret's form, and which events an endpoint is sent. The
 * server checks and stores from here; the CLI prints from here. The secret's form and the
 * signature are contract/webhook-signature.ts's.
 */
import { type EventType, typesNamedBy } from './events.js';

export const MAX_WEBHOOK_DESCRIPTION = 500;
/** The type of the delivery `POST /api/webhooks/{webhookId}/test` sends (never in the event log). */
export const TEST_DELIVERY_TYPE = 'webhook.test';
/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** An endpoint whose deliveries have failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;

export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Event types or families (`user.*`), as given. */
  types: string[];
  description: string;
  enabled: boolean;
  /** Why the service disabled it (410, five days of failures); null when enabled or by hand. */
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** `POST /api/webhooks` and rotate-secret answer the secret once, beside the endpoint. */
export type WebhookWithSecret = WebhookEndpoint & { secret: string };

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  id: string;
  /** The webhook-id header: the event's id (a test's own), the same on every retry. */
  eventId: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: string | null;
  /** The receiver's status code of the last attempt, when it answered. */
  lastStatus: number | null;
  /** Why the last attempt failed, when it did (a timeout, a refused address, a redirect…). */
  lastError: string | null;
  lastDurationMs: number | null;
  /** When the next attempt is due; null once delivered or given up. */
  nextAttemptAt: string | null;
  createdAt: string;
}

/** Whether an endpoint subscribed to `types` is sent an event of `type`. */
export const subscribes = (types: readonly string[], type: EventType): boolean =>
  types.some((word) => typesNamedBy(word)?.includes(type) ?? false);
