/**
 * Who a request is, in PostgreSQL: one round trip for the token, its branch and tenant and the
 * credentials epoch of the same snapshot. Kept while the epoch stays the same, checked on every
 * request: a token revoked through any replica or `roster tokens revoke` fails on the very next
 * request everywhere.
 */
import { cachedCredentials } from '../common/credentials-cache.js';
import { type TokenRow, tokenOf } from '../common/rows.js';
import { parseTokenString, secretMatches } from '../common/token-secret.js';
import type { CredentialsRepo } from '../store.js';
import { DEFAULT_TENANT } from '../types.js';
import { type Pool, query } from './db.js';
import { freshRead } from './fresh-read.js';

type CredentialsRow = TokenRow & {
  b_id: number;
  b_name: string;
  b_created_at: string;
  t_id: number;
  t_host: string;
  t_created_at: string;
  t_public_url: string | null;
  t_quota_bytes: number | null;
  t_scim_invitations: boolean;
  epoch: number;
};

/**
 * The token with its branch and tenant, where that tenant is the one the host resolves to (its
 * own, else the catch-all `*`), and the credentials epoch of the same snapshot.
 */
const LOOKUP = `SELECT tokens.*, b.id AS b_id, b.name AS b_name, b.created_at AS b_created_at,
         t.id AS t_id, t.host AS t_host, t.created_at AS t_created_at,
         t.public_url AS t_public_url, t.quota_bytes AS t_quota_bytes,
         t.scim_invitations AS t_scim_invitations,
         (SELECT value FROM credentials_epoch) AS epoch
       FROM tokens JOIN branches b ON b.id = tokens.branch_id JOIN tenants t ON t.id = b.tenant_id
       WHERE tokens.id = $1 AND tokens.revoked_at IS NULL
         AND t.id = coalesce(
           (SELECT id FROM tenants WHERE lower(host) = lower($2)),
           (SELECT id FROM tenants WHERE host = $3))`;

export function credentialsRepo(pool: Pool): CredentialsRepo {
  // Exact on every request, whichever replica changed what: the epoch moves in the transaction
  // of any change to tenants, branches or tokens (schema.ts), and the read goes out after the
  // request came in (fresh-read.ts).
  const currentEpoch = freshRead(
    async () =>
      (await query<{ value: number }>(pool, 'SELECT value FROM credentials_epoch')).rows[0]?.value,
  );
  return cachedCredentials(currentEpoch, async (host, tokenString) => {
    const parts = parseTokenString(tokenString);
    if (!parts) return undefined;
    const { rows } = await query<CredentialsRow>(pool, LOOKUP, [parts.id, host, DEFAULT_TENANT]);
    const r = rows[0];
    if (!r || !secretMatches(parts.secret, r.secret_hash)) return undefined;
    return {
      version: r.epoch,
      credentials: {
        token: tokenOf(r),
        branch: { id: r.b_id, tenantId: r.t_id, name: r.b_name, createdAt: r.b_created_at },
        tenant: {
          id: r.t_id,
          host: r.t_host,
          createdAt: r.t_created_at,
          publicUrl: r.t_public_url,
          quotaBytes: r.t_quota_bytes,
          scimInvitations: r.t_scim_invitations,
        },
      },
    };
  });
}
