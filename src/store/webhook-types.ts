/** The webhook tables' rows at the store's boundary: what both backends take and give back. */
import type { DeliveryStatus } from '../contract/webhooks.js';

export interface WebhookRow {
  id: string;
  tenant_id: number;
  branch_id: number;
  url: string;
  /** Comma list of event types or families, as given. */
  types: string;
  description: string;
  enabled: boolean;
  disabled_reason: string | null;
  /** The signing secret (`whsec_…`); see docs/events.md on why it is stored as it is. */
  secret: string;
  /** The secret before the last rotation, signing beside it until previous_expires_at (ms). */
  previous_secret: string | null;
  previous_expires_at: number | null;
  /**
   * Every secret a rotation replaced that still signs, newest first, as JSON
   * `[{secret, until}]` (server/webhooks/secrets.ts); null on an endpoint never rotated since
   * the list came (previous_secret alone then).
   */
  retired_secrets: string | null;
  /** The last event sequence the fan-out has looked at for this endpoint. */
  cursor: number;
  /** Since when (ms) every attempt has failed; null after a success. */
  failing_since: number | null;
  created_at: string;
  updated_at: string;
}

export type NewWebhookRow = Omit<WebhookRow, 'cursor' | 'failing_since'>;

/** What a PATCH, a rotation or the worker may change. */
export type WebhookColumns = Pick<
  WebhookRow,
  | 'url'
  | 'types'
  | 'description'
  | 'enabled'
  | 'disabled_reason'
  | 'secret'
  | 'previous_secret'
  | 'previous_expires_at'
  | 'retired_secrets'
>;

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  /** The exact body every attempt sends (`{type, timestamp, data}`). */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  last_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  next_attempt_at: number | null;
  created_at: string;
  /** Manual retries (POST …/retry): an attempt settling compares the count its claim read. */
  retries: number;
}

/** A delivery claimed for an attempt, with what the attempt needs of its endpoint. */
export interface ClaimedDelivery extends DeliveryRow {
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_expires_at: number | null;
  retired_secrets: string | null;
  failing_since: number | null;
}

/** How an attempt ends, as the worker decided it. */
export interface Settlement {
  status: DeliveryStatus;
  at: number;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  /** When the next attempt is due; null when none is. */
  nextAttemptAt: number | null;
  /** Whether the receiver took it (the endpoint is failing no longer). */
  succeeded: boolean;
  /** Disable the endpoint, saying why (410 Gone, five days of failures). */
  disable?: string;
}

/** A claimed delivery with how its attempt ended. */
export interface Settled {
  delivery: ClaimedDelivery;
  settlement: Settlement;
}

/**
 * Where a delivery stands once its attempt is settled: the settlement's status and due time,
 * unless a manual retry asked while the attempt was in flight stood instead (pending, due at
 * the retry's time).
 */
export interface SettledAs {
  status: DeliveryStatus;
  nextAttemptAt: number | null;
}

export interface ClaimRequest {
  now: number;
  /** How long a claimed delivery stays the claimer's (then another may take it over). */
  leaseMs: number;
  limit: number;
  /** At most this many of one endpoint in flight here, those already in `busy` counted. */
  perEndpoint: number;
  /** How many deliveries of each endpoint this process is sending now. */
  busy: Record<string, number>;
  /** The deliveries this process is sending now (never claimed again meanwhile). */
  inFlight: string[];
}
