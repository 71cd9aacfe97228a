/**
 * Webhook endpoints and deliveries in SQLite. Each step is one synchronous transaction; an
 * endpoint's change records its event inside it. One process serves a data dir
 * (data-dir/lock.ts), so a claim writes no lease: nobody else could take the delivery, the
 * process knows what it is sending (`inFlight`), and a process killed mid-attempt leaves its
 * deliveries due at once for the next start (a lease would delay them, and cost one more
 * commit per delivery).
 */
import {
  DELIVERY_COLUMNS,
  deliveriesFor,
  newDelivery,
  WEBHOOK_COLUMNS,
  webhookChanges,
  webhookEvent,
} from '../common/webhook-rows.js';
import type { WebhooksRepo } from '../store.js';
import type { Audit } from '../types.js';
import type {
  ClaimedDelivery,
  DeliveryRow,
  NewWebhookRow,
  Settled,
  SettledAs,
  WebhookRow,
} from '../webhook-types.js';
import type { Db } from './db.js';
import type { SqliteEvents } from './events.repo.js';

/**
 * A manual retry since the claim (its count moved), on a delivery still pending, that this
 * attempt did not deliver: the retry's due time stands.
 */
const RETRIED_MEANWHILE = `@status <> 'delivered' AND status = 'pending' AND retries <> @claimedRetries`;

type Raw<T> = Omit<T, 'enabled'> & { enabled: number };
const rowOf = <T extends { enabled: boolean }>(r: Raw<T> | undefined): T | undefined =>
  r && ({ ...r, enabled: r.enabled === 1 } as unknown as T);

type Sync<T> = {
  [K in keyof T]: T[K] extends (...a: infer A) => Promise<infer R> ? (...a: A) => R : T[K];
};

export function webhooksRepo(db: Db, events: SqliteEvents): Sync<WebhooksRepo> {
  const one = db.prepare<[number, string], Raw<WebhookRow>>(
    'SELECT * FROM webhooks WHERE branch_id = ? AND id = ?',
  );
  const all = db.prepare<[number], Raw<WebhookRow>>(
    'SELECT * FROM webhooks WHERE branch_id = ? ORDER BY created_at, id',
  );
  const enabled = db.prepare<[], Raw<WebhookRow>>('SELECT * FROM webhooks WHERE enabled = 1');
  const insert = db.prepare(
    `INSERT INTO webhooks (${WEBHOOK_COLUMNS.join(', ')})
     VALUES (${WEBHOOK_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  const logEnd = db
    .prepare<[number]>('SELECT coalesce(max(sequence), 0) FROM events WHERE branch_id = ?')
    .pluck();
  const setCursor = db.prepare<[number, string]>('UPDATE webhooks SET cursor = ? WHERE id = ?');
  const addDelivery = db.prepare(
    `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS.join(', ')})
     VALUES (${DELIVERY_COLUMNS.map((c) => `@${c}`).join(', ')}) ON CONFLICT DO NOTHING`,
  );
  const enabledIds = db.prepare<[], string>('SELECT id FROM webhooks WHERE enabled = 1').pluck();
  // Each endpoint's first due deliveries, from its own index: a backlog behind one receiver
  // costs the others nothing.
  const dueOf = db.prepare<Record<string, unknown>, ClaimedDelivery>(
    `SELECT d.*, w.url, w.secret, w.previous_secret, w.previous_expires_at, w.retired_secrets, w.failing_since
     FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.webhook_id = @webhookId AND d.status = 'pending' AND d.next_attempt_at <= @now
       AND d.id NOT IN (SELECT value FROM json_each(@inFlight))
     ORDER BY d.next_attempt_at, d.id LIMIT @room`,
  );
  // A manual retry during the attempt is kept: unless the attempt delivered it, the delivery
  // stays due at the retry's time (RETRIED_MEANWHILE).
  const settle = db.prepare(
    `UPDATE webhook_deliveries SET attempts = attempts + 1,
       status = CASE WHEN ${RETRIED_MEANWHILE} THEN 'pending' ELSE @status END,
       next_attempt_at = CASE WHEN ${RETRIED_MEANWHILE} THEN next_attempt_at ELSE @nextAttemptAt END,
       last_attempt_at = @at, last_status = @httpStatus, last_error = @error,
       last_duration_ms = @durationMs, lease_until = NULL, lease_owner = NULL WHERE id = @id
     RETURNING status, next_attempt_at AS nextAttemptAt`,
  );
  const healthy = db.prepare<[string]>('UPDATE webhooks SET failing_since = NULL WHERE id = ?');
  const failing = db.prepare<[number, string]>(
    'UPDATE webhooks SET failing_since = coalesce(failing_since, ?) WHERE id = ?',
  );
  const branchOf = db
    .prepare<[string], number>('SELECT branch_id FROM webhooks WHERE id = ?')
    .pluck();
  const deliveries = db.prepare<[string, number], DeliveryRow>(
    'SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?',
  );
  const retry = db.prepare<[number, string, string], DeliveryRow>(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, retries = retries + 1
     WHERE webhook_id = ? AND id = ? RETURNING *`,
  );
  const nextDue = db
    .prepare(
      `SELECT min(d.next_attempt_at) FROM webhook_deliveries d
       JOIN webhooks w ON w.id = d.webhook_id AND w.enabled = 1 WHERE d.status = 'pending'`,
    )
    .pluck();
  const remove = db.prepare<[string]>('DELETE FROM webhooks WHERE id = ?');
  const prune = db.prepare<[string, number]>(
    `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries
       WHERE status <> 'pending' AND created_at < ? LIMIT ?)`,
  );
  const removeDeliveries = db.prepare<[string]>(
    'DELETE FROM webhook_deliveries WHERE webhook_id = ?',
  );
  const place = (r: NewWebhookRow) => ({ tenantId: r.tenant_id, branchId: r.branch_id });
  const stored = (r: NewWebhookRow) => ({ ...r, enabled: r.enabled ? 1 : 0 });

  const update = db.transaction(
    (
      branchId: number,
      id: string,
      decide: (row: WebhookRow) => Partial<WebhookRow>,
      audit: Audit,
    ): WebhookRow | undefined => {
      const before = rowOf<WebhookRow>(one.get(branchId, id));
      if (!before) return undefined;
      const after: WebhookRow = { ...before, ...decide(before) };
      const changes = webhookChanges(before, after);
      if (Object.keys(changes).length === 0) return before;
      after.updated_at = new Date().toISOString();
      const columns = WEBHOOK_COLUMNS.filter((c) => c !== 'id');
      db.prepare(
        `UPDATE webhooks SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`,
      ).run(stored(after));
      if (after.enabled && !before.enabled) {
        setCursor.run(logEnd.get(branchId) as number, id);
        healthy.run(id);
      }
      events.record(webhookEvent('webhook.updated', after, changes), audit, place(after));
      return after;
    },
  );

  /** One settlement, inside the caller's transaction. */
  function settleOne({ delivery: d, settlement: s }: Settled, audit: Audit): SettledAs | undefined {
    const as = settle.get({ ...s, id: d.id, claimedRetries: d.retries }) as SettledAs | undefined;
    if (s.succeeded) healthy.run(d.webhook_id);
    else failing.run(s.at, d.webhook_id);
    const branchId = s.disable ? branchOf.get(d.webhook_id) : undefined;
    if (s.disable && branchId !== undefined) {
      update(
        branchId,
        d.webhook_id,
        (w) => (w.enabled ? { enabled: false, disabled_reason: s.disable ?? null } : {}),
        audit,
      );
    }
    return as;
  }

  return {
    create: db.transaction((row: NewWebhookRow, audit: Audit): WebhookRow => {
      insert.run(stored(row));
      events.record(
        webhookEvent('webhook.created', row, webhookChanges(undefined, row)),
        audit,
        place(row),
      );
      const cursor = logEnd.get(row.branch_id) as number;
      setCursor.run(cursor, row.id);
      return { ...row, cursor, failing_since: null };
    }),
    list: (branchId) => all.all(branchId).map((r) => rowOf<WebhookRow>(r)!),
    find: (branchId, id) => rowOf<WebhookRow>(one.get(branchId, id)),
    update,
    remove: db.transaction((branchId: number, id: string, audit: Audit): boolean => {
      const row = rowOf<WebhookRow>(one.get(branchId, id));
      if (!row) return false;
      remove.run(id);
      removeDeliveries.run(id);
      events.record(
        webhookEvent('webhook.deleted', row, webhookChanges(row, undefined)),
        audit,
        place(row),
      );
      return true;
    }),
    fanOut: db.transaction((now: number, limit: number) => {
      let made = 0;
      let more = false;
      for (const w of enabled.all()) {
        const page = events.list({ branchId: w.branch_id, afterSequence: w.cursor, limit });
        const last = page.rows.at(-1);
        if (!last) continue;
        for (const d of deliveriesFor(w, page.rows, now)) made += addDelivery.run(d).changes;
        setCursor.run(last.sequence, w.id);
        more ||= page.rows.length === limit;
      }
      return { made, more };
    }),
    addDelivery: db.transaction((branchId: number, webhookId: string, d, now: number) => {
      if (!one.get(branchId, webhookId)) return undefined;
      const row = newDelivery(webhookId, d.eventId, d.type, d.body, now);
      addDelivery.run(row);
      return row;
    }),
    claim({ now, limit, perEndpoint, busy, inFlight }) {
      const out: ClaimedDelivery[] = [];
      const excluded = JSON.stringify(inFlight);
      for (const webhookId of enabledIds.all()) {
        const room = Math.min(perEndpoint - (busy[webhookId] ?? 0), limit - out.length);
        if (room > 0) out.push(...dueOf.all({ webhookId, now, inFlight: excluded, room }));
      }
      return out;
    },
    settle: db.transaction((d, s, audit: Audit) => {
      settleOne({ delivery: d, settlement: s }, audit);
    }),
    // One commit for the batch: on SQLite the commit is most of a settlement's cost.
    settleAll: db.transaction((settled: readonly Settled[], audit: Audit) => {
      const as = new Map<string, SettledAs>();
      for (const one of settled) {
        const stood = settleOne(one, audit);
        if (stood) as.set(one.delivery.id, stood);
      }
      return as;
    }),
    deliveries: (branchId, webhookId, limit) =>
      one.get(branchId, webhookId) ? deliveries.all(webhookId, limit) : undefined,
    retry: (branchId, webhookId, deliveryId, now) =>
      one.get(branchId, webhookId) ? retry.get(now, webhookId, deliveryId) : undefined,
    nextDue: () => (nextDue.get() as number | null) ?? undefined,
    prune: (before, limit) => prune.run(before, limit).changes,
  };
}
