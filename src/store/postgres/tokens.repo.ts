/** API tokens in PostgreSQL (the token string format lives in ../common/token-secret.ts). */
import type { Channel, Scope } from '../../contract/scopes.js';
import { type TokenRow, tokenOf } from '../common/rows.js';
import { newToken, parseTokenString, secretMatches } from '../common/token-secret.js';
import type { TokensRepo } from '../store.js';
import type { Token } from '../types.js';
import { type Pool, type Queryable, query } from './db.js';

/** Creates a token on `db` (the pool, or a transaction's client). */
export async function createToken(
  db: Queryable,
  branchId: number,
  name: string,
  scopes: Scope[],
  channels: Channel[],
) {
  const { id, hash, tokenString } = newToken();
  const createdAt = new Date().toISOString();
  await query(
    db,
    `INSERT INTO tokens (id, branch_id, name, scopes, channels, secret_hash, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, branchId, name, scopes.join(','), channels.join(','), hash, createdAt],
  );
  const token: Token = { id, branchId, name, scopes, channels, createdAt, revokedAt: null };
  return { token, secret: tokenString };
}

export function tokensRepo(pool: Pool): TokensRepo {
  return {
    create: (branchId, name, scopes, channels) =>
      createToken(pool, branchId, name, scopes, channels),
    async list() {
      const { rows } = await query<TokenRow & { branch: string; host: string }>(
        pool,
        `SELECT tokens.*, branches.name AS branch, tenants.host AS host FROM tokens
         JOIN branches ON branches.id = tokens.branch_id
         JOIN tenants ON tenants.id = branches.tenant_id
         ORDER BY tokens.created_at, tokens.id`,
      );
      return rows.map((r) => ({ ...tokenOf(r), branch: r.branch, tenant: r.host }));
    },
    async authenticate(tokenString) {
      const parts = parseTokenString(tokenString);
      if (!parts) return undefined;
      const { rows } = await query<TokenRow>(
        pool,
        'SELECT * FROM tokens WHERE id = $1 AND revoked_at IS NULL',
        [parts.id],
      );
      const row = rows[0];
      return row && secretMatches(parts.secret, row.secret_hash) ? tokenOf(row) : undefined;
    },
    async revoke(id) {
      const { rowCount } = await query(
        pool,
        'UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
        [new Date().toISOString(), id],
      );
      return (rowCount ?? 0) > 0;
    },
  };
}
