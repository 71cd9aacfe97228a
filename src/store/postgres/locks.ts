/**
 * What replicas do once between them, under PostgreSQL advisory locks: the first start's
 * bootstrap, and the media sweep. (Migrations have their own lock, in db.ts.)
 */
import { SCOPES } from '../../contract/scopes.js';
import { systemAudit } from '../common/event-rows.js';
import type { Store } from '../store.js';
import { DEFAULT_TENANT, ROOT_BRANCH } from '../types.js';
import { connect, type Pool, query, transaction } from './db.js';
import { addTenant } from './tenants.repo.js';
import { createToken } from './tokens.repo.js';

/** The advisory lock one replica holds while it sweeps media. */
const SWEEP_LOCK = 0x53776570; // "Swep"

/** The advisory lock that makes a first start's bootstrap happen once across replicas. */
const BOOTSTRAP_LOCK = 0x426f6f74; // "Boot"

export function bootstrap(pool: Pool): Store['bootstrap'] {
  return () =>
    transaction(pool, async (client) => {
      // Replicas starting at once on an empty database: one bootstraps, the rest see tenants.
      await query(client, 'SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
      const { rows } = await query<{ n: number }>(client, 'SELECT count(*) AS n FROM tenants');
      if (rows[0]!.n > 0) return undefined;
      const tenant = await addTenant(client, DEFAULT_TENANT);
      const { rows: branch } = await query<{ id: number }>(
        client,
        'SELECT id FROM branches WHERE tenant_id = $1 AND name = $2',
        [tenant.id, ROOT_BRANCH],
      );
      const { secret } = await createToken(
        client,
        branch[0]!.id,
        'admin',
        [...SCOPES],
        ['api'],
        systemAudit('serve'),
      );
      return { adminToken: secret };
    });
}

export function sweepLock(pool: Pool): Store['trySweepLock'] {
  return async () => {
    // Session-level, on a connection of its own, held until released. (Should that connection
    // die meanwhile, the lock goes with its session; the pool drops the connection on release.)
    const client = await connect(pool);
    let locked: boolean | undefined;
    try {
      const { rows } = await query<{ locked: boolean }>(
        client,
        'SELECT pg_try_advisory_lock($1) AS locked',
        [SWEEP_LOCK],
      );
      locked = rows[0]?.locked;
    } finally {
      if (!locked) client.release();
    }
    if (!locked) return undefined;
    return async () => {
      await query(client, 'SELECT pg_advisory_unlock($1)', [SWEEP_LOCK]).catch(() => {});
      client.release();
    };
  };
}
