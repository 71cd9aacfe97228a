/** API tokens in PostgreSQL (the token string format lives in ../common/token-secret.ts). */
import type { Channel, Scope } from '../../contract/scopes.js';
import { tokenEvent } from '../common/changes.js';
import type { Notifier } from '../common/notifier.js';
import { type TokenRow, tokenOf } from '../common/rows.js';
import { newToken, parseTokenString, secretMatches } from '../common/token-secret.js';
import type { TokensRepo } from '../store.js';
import type { Audit, Token } from '../types.js';
import { type Client, type Pool, query, transaction } from './db.js';
import { placeOf, recordEvent } from './events.repo.js';

/** Creates a token and its event on `db`, a transaction's client. */
export async function createToken(
  db: Client,
  branchId: number,
  name: string,
  scopes: Scope[],
  channels: Channel[],
  audit: Audit,
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
  await recordEvent(db, tokenEvent('token.created', token), audit, await placeOf(db, branchId));
  return { token, secret: tokenString };
}

export function tokensRepo(pool: Pool, notifier: Notifier): TokensRepo {
  return {
    async create(branchId, name, scopes, channels, audit) {
      const created = await transaction(pool, (client) =>
        createToken(client, branchId, name, scopes, channels, audit),
      );
      notifier.notify();
      return created;
    },
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
    async revoke(id, audit) {
      const revoked = await transaction(pool, async (client) => {
        const { rows } = await query<TokenRow>(
          client,
          'UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING *',
          [new Date().toISOString(), id],
        );
        const row = rows[0];
        if (!row) return false;
        const token = tokenOf(row);
        await recordEvent(
          client,
          tokenEvent('token.deleted', token),
          audit,
          await placeOf(client, token.branchId),
        );
        return true;
      });
      if (revoked) notifier.notify();
      return revoked;
    },
  };
}
