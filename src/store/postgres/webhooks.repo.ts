/**
 * Webhook endpoints and deliveries in PostgreSQL, shared by every replica. An endpoint's change
 * and its event are one transaction (the event last, events.repo.ts). The fan-out locks the
 * endpoint's row (SKIP LOCKED: one replica at a time per endpoint) and reads the log after its
 * cursor inside that transaction, as a follower would; a claim leases deliveries with
 * `FOR UPDATE SKIP LOCKED`, so replicas claiming at once take different ones, and one that died
 * leaves its claims to the others when the lease runs out (as the mail outbox does).
 */
import { randomBytes } from 'node:crypto';
import type { Notifier } from '../common/notifier.js';
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
import { type Client, type Pool, type Queryable, query, transaction } from './db.js';
import { listEvents, recordEvent } from './events.repo.js';

const place = (r: NewWebhookRow) => ({ tenantId: r.tenant_id, branchId: r.branch_id });
const INSERT_DELIVERY = `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS.join(', ')})
  VALUES (${DELIVERY_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING`;
const SET_CURSOR_TO_END = `UPDATE webhooks SET cursor =
  (SELECT coalesce(max(sequence), 0) FROM events WHERE branch_id = $1) WHERE id = $2
  RETURNING cursor`;

async function insertDelivery(db: Queryable, d: DeliveryRow): Promise<number> {
  const { rowCount } = await query(
    db,
    INSERT_DELIVERY,
    DELIVERY_COLUMNS.map((c) => d[c]),
  );
  return rowCount ?? 0;
}

async function updateOn(
  client: Client,
  branchId: number,
  id: string,
  decide: (row: WebhookRow) => Partial<WebhookRow>,
  audit: Audit,
): Promise<{ row: WebhookRow; changed: boolean } | undefined> {
  const { rows } = await query<WebhookRow>(
    client,
    'SELECT * FROM webhooks WHERE branch_id = $1 AND id = $2 FOR UPDATE',
    [branchId, id],
  );
  const before = rows[0];
  if (!before) return undefined;
  const after: WebhookRow = { ...before, ...decide(before) };
  const changes = webhookChanges(before, after);
  if (Object.keys(changes).length === 0) return { row: before, changed: false };
  after.updated_at = new Date().toISOString();
  const columns = WEBHOOK_COLUMNS.filter((c) => c !== 'id');
  await query(
    client,
    `UPDATE webhooks SET ${columns.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`,
    [id, ...columns.map((c) => after[c])],
  );
  if (after.enabled && !before.enabled) {
    await query(client, 'UPDATE webhooks SET failing_since = NULL WHERE id = $1', [id]);
    await query(client, SET_CURSOR_TO_END, [branchId, id]);
  }
  await recordEvent(client, webhookEvent('webhook.updated', after, changes), audit, place(after));
  return { row: after, changed: true };
}

/**
 * A manual retry since the claim (its count moved), on a delivery still pending, that this
 * attempt did not deliver: the retry's due time stands. Not a delivery another replica has
 * settled meanwhile (its lease ran out): that one is settled again, as before.
 */
const RETRIED_MEANWHILE = `v.status <> 'delivered' AND webhook_deliveries.status = 'pending'
  AND webhook_deliveries.retries <> v.claimed_retries`;

/**
 * Where each endpoint's failing_since ends after these outcomes in order: NULL after a success,
 * set by the first failure since the last success (kept if it was already failing).
 */
function failingAfter(settled: readonly Settled[]) {
  const by = new Map<string, { cleared: boolean; firstFailure?: number }>();
  for (const { delivery, settlement } of settled) {
    const e = by.get(delivery.webhook_id) ?? { cleared: false };
    if (settlement.succeeded) by.set(delivery.webhook_id, { cleared: true });
    else by.set(delivery.webhook_id, { ...e, firstFailure: e.firstFailure ?? settlement.at });
  }
  return by;
}

export function webhooksRepo(pool: Pool, notifier: Notifier): WebhooksRepo {
  const owner = randomBytes(8).toString('hex');
  const find = async (db: Queryable, branchId: number, id: string) =>
    (
      await query<WebhookRow>(db, 'SELECT * FROM webhooks WHERE branch_id = $1 AND id = $2', [
        branchId,
        id,
      ])
    ).rows[0];

  /**
   * Several attempts' outcomes in one transaction: one UPDATE for the deliveries, one per
   * endpoint for its failing_since, and the rare disable; a round trip per statement, not
   * four per delivery.
   */
  async function settleAll(
    settled: readonly Settled[],
    audit: Audit,
  ): Promise<Map<string, SettledAs>> {
    const as = new Map<string, SettledAs>();
    if (settled.length === 0) return as;
    const column = <K extends keyof Settled['settlement']>(k: K) =>
      settled.map((x) => x.settlement[k]);
    const disabled = await transaction(pool, async (client) => {
      const { rows: stood } = await query<SettledAs & { id: string }>(
        client,
        // A manual retry during the attempt is kept: unless the attempt delivered it, the
        // delivery stays due at the retry's time (RETRIED_MEANWHILE).
        `UPDATE webhook_deliveries SET attempts = attempts + 1,
           status = CASE WHEN ${RETRIED_MEANWHILE} THEN 'pending' ELSE v.status END,
           next_attempt_at = CASE WHEN ${RETRIED_MEANWHILE}
             THEN webhook_deliveries.next_attempt_at ELSE v.next_attempt_at END,
           last_attempt_at = v.at, last_status = v.http_status, last_error = v.error,
           last_duration_ms = v.duration_ms, lease_until = NULL, lease_owner = NULL
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::integer[], $5::text[],
           $6::bigint[], $7::bigint[], $8::integer[])
           AS v(id, status, at, http_status, error, duration_ms, next_attempt_at, claimed_retries)
         WHERE webhook_deliveries.id = v.id
         RETURNING webhook_deliveries.id, webhook_deliveries.status,
           webhook_deliveries.next_attempt_at AS "nextAttemptAt"`,
        [
          settled.map((x) => x.delivery.id),
          column('status'),
          column('at'),
          column('httpStatus'),
          column('error'),
          column('durationMs'),
          column('nextAttemptAt'),
          settled.map((x) => x.delivery.retries),
        ],
      );
      for (const { id, ...row } of stood) as.set(id, row);
      const branches = new Map<string, number>();
      for (const [id, f] of failingAfter(settled)) {
        // A success touches the endpoint's row only if it was failing: its row lock would make
        // the fan-out's `FOR UPDATE SKIP LOCKED` take the endpoint for another replica's, and
        // leave the rest of a backlog to the next poll. (A disable settled beside it still
        // finds the branch, below.)
        const { rows } = await query<{ branch_id: number }>(
          client,
          f.firstFailure === undefined
            ? 'UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL RETURNING branch_id'
            : f.cleared
              ? 'UPDATE webhooks SET failing_since = $2 WHERE id = $1 RETURNING branch_id'
              : 'UPDATE webhooks SET failing_since = coalesce(failing_since, $2) WHERE id = $1 RETURNING branch_id',
          f.firstFailure === undefined ? [id] : [id, f.firstFailure],
        );
        if (rows[0]) branches.set(id, rows[0].branch_id);
        else if (settled.some((x) => x.delivery.webhook_id === id && x.settlement.disable)) {
          const w = await query<{ branch_id: number }>(
            client,
            'SELECT branch_id FROM webhooks WHERE id = $1',
            [id],
          );
          if (w.rows[0]) branches.set(id, w.rows[0].branch_id);
        }
      }
      let changed = false;
      for (const { delivery, settlement } of settled) {
        const branchId = branches.get(delivery.webhook_id);
        const reason = settlement.disable;
        if (!reason || branchId === undefined) continue;
        const outcome = await updateOn(
          client,
          branchId,
          delivery.webhook_id,
          (w) => (w.enabled ? { enabled: false, disabled_reason: reason } : {}),
          audit,
        );
        changed ||= outcome?.changed ?? false;
      }
      return changed;
    });
    if (disabled) notifier.notify();
    return as;
  }

  return {
    async create(row, audit) {
      const created = await transaction(pool, async (client) => {
        await query(
          client,
          `INSERT INTO webhooks (${WEBHOOK_COLUMNS.join(', ')})
           VALUES (${WEBHOOK_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
          WEBHOOK_COLUMNS.map((c) => row[c]),
        );
        const changes = webhookChanges(undefined, row);
        await recordEvent(client, webhookEvent('webhook.created', row, changes), audit, place(row));
        // After its own event: an endpoint is sent what happens after it was made.
        const { rows } = await query<{ cursor: number }>(client, SET_CURSOR_TO_END, [
          row.branch_id,
          row.id,
        ]);
        return { ...row, cursor: rows[0]!.cursor, failing_since: null };
      });
      notifier.notify();
      return created;
    },
    async list(branchId) {
      const { rows } = await query<WebhookRow>(
        pool,
        'SELECT * FROM webhooks WHERE branch_id = $1 ORDER BY created_at, id',
        [branchId],
      );
      return rows;
    },
    find: (branchId, id) => find(pool, branchId, id),
    async update(branchId, id, decide, audit) {
      const outcome = await transaction(pool, (client) =>
        updateOn(client, branchId, id, decide, audit),
      );
      if (outcome?.changed) notifier.notify();
      return outcome?.row;
    },
    async remove(branchId, id, audit) {
      const removed = await transaction(pool, async (client) => {
        const { rows } = await query<WebhookRow>(
          client,
          'DELETE FROM webhooks WHERE branch_id = $1 AND id = $2 RETURNING *',
          [branchId, id],
        );
        const row = rows[0];
        if (!row) return false;
        await query(client, 'DELETE FROM webhook_deliveries WHERE webhook_id = $1', [id]);
        const changes = webhookChanges(row, undefined);
        await recordEvent(client, webhookEvent('webhook.deleted', row, changes), audit, place(row));
        return true;
      });
      if (removed) notifier.notify();
      return removed;
    },
    async fanOut(now, limit) {
      const { rows: endpoints } = await query<{ id: string }>(
        pool,
        'SELECT id FROM webhooks WHERE enabled',
      );
      let made = 0;
      let more = false;
      for (const { id } of endpoints) {
        const page = await transaction(pool, async (client) => {
          const { rows } = await query<WebhookRow>(
            client,
            'SELECT * FROM webhooks WHERE id = $1 AND enabled FOR UPDATE SKIP LOCKED',
            [id],
          );
          const w = rows[0];
          // Another replica is at it (and goes on while its page is full), or it went meanwhile.
          if (!w) return { made: 0, full: false };
          const page = await listEvents(client, {
            branchId: w.branch_id,
            afterSequence: w.cursor,
            limit,
          });
          const last = page.rows.at(-1);
          if (!last) return { made: 0, full: false };
          // This transaction's commit (synchronous, with the cursor's write) is its wait for the
          // flush of what it read (events.repo.ts): nothing a crash could take back is sent.
          let n = 0;
          for (const d of deliveriesFor(w, page.rows, now)) n += await insertDelivery(client, d);
          await query(client, 'UPDATE webhooks SET cursor = $1 WHERE id = $2', [last.sequence, id]);
          return { made: n, full: page.rows.length === limit };
        });
        made += page.made;
        more ||= page.full;
      }
      return { made, more };
    },
    async addDelivery(branchId, webhookId, d, now) {
      if (!(await find(pool, branchId, webhookId))) return undefined;
      const row = newDelivery(webhookId, d.eventId, d.type, d.body, now);
      await insertDelivery(pool, row);
      return row;
    },
    async claim({ now, leaseMs, limit, perEndpoint, busy }) {
      const { rows: endpoints } = await query<{ id: string }>(
        pool,
        'SELECT id FROM webhooks WHERE enabled',
      );
      const out: ClaimedDelivery[] = [];
      for (const { id } of endpoints) {
        const room = Math.min(perEndpoint - (busy[id] ?? 0), limit - out.length);
        if (room <= 0) continue;
        // Each endpoint's first due deliveries from its own index (a backlog behind one
        // receiver costs the others nothing). The lease is checked again on the locked row
        // (PostgreSQL re-evaluates the outer WHERE on a row another replica changed
        // meanwhile), so one a replica has just claimed and committed is not claimed twice.
        const { rows } = await query<ClaimedDelivery>(
          pool,
          `WITH picked AS (
             SELECT id FROM webhook_deliveries
             WHERE webhook_id = $1 AND status = 'pending' AND next_attempt_at <= $2
               AND (lease_until IS NULL OR lease_until <= $2)
             ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
           UPDATE webhook_deliveries d SET lease_until = $4, lease_owner = $5
           FROM picked, webhooks w WHERE d.id = picked.id AND w.id = d.webhook_id
           RETURNING d.*, w.url, w.secret, w.previous_secret, w.previous_expires_at, w.retired_secrets,
             w.failing_since`,
          [id, now, room, now + leaseMs, owner],
        );
        out.push(...rows.sort((x, y) => Number(x.next_attempt_at) - Number(y.next_attempt_at)));
      }
      return out;
    },
    settle: async (d, s, audit) => {
      await settleAll([{ delivery: d, settlement: s }], audit);
    },
    settleAll,
    async deliveries(branchId, webhookId, limit) {
      if (!(await find(pool, branchId, webhookId))) return undefined;
      const { rows } = await query<DeliveryRow>(
        pool,
        'SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2',
        [webhookId, limit],
      );
      return rows;
    },
    async retry(branchId, webhookId, deliveryId, now) {
      if (!(await find(pool, branchId, webhookId))) return undefined;
      const { rows } = await query<DeliveryRow>(
        pool,
        `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $1,
           retries = retries + 1
         WHERE webhook_id = $2 AND id = $3 RETURNING *`,
        [now, webhookId, deliveryId],
      );
      return rows[0];
    },
    async nextDue() {
      const { rows } = await query<{ at: number | null }>(
        pool,
        `SELECT min(d.next_attempt_at) AS at FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id AND w.enabled WHERE d.status = 'pending'`,
      );
      return rows[0]?.at ?? undefined;
    },
    async prune(before, limit) {
      const { rowCount } = await query(
        pool,
        `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries
           WHERE status <> 'pending' AND created_at < $1 LIMIT $2)`,
        [before, limit],
      );
      return rowCount ?? 0;
    },
  };
}
