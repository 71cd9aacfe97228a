/** API tokens in SQLite (the token string format lives in ../common/token-secret.ts). */
import type { Channel, Scope } from '../../contract/scopes.js';
import { tokenEvent } from '../common/changes.js';
import { type TokenRow, tokenOf } from '../common/rows.js';
import { newToken, parseTokenString, secretMatches } from '../common/token-secret.js';
import type { Audit, Token } from '../types.js';
import type { Db } from './db.js';
import type { SqliteEvents } from './events.repo.js';

export function tokensRepo(db: Db, events: SqliteEvents, onWrite: () => void = () => {}) {
  const byId = db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE id = ?');
  const all = db.prepare<[], TokenRow & { branch: string; host: string }>(
    `SELECT tokens.*, branches.name AS branch, tenants.host AS host FROM tokens
     JOIN branches ON branches.id = tokens.branch_id JOIN tenants ON tenants.id = branches.tenant_id
     ORDER BY tokens.created_at, tokens.id`,
  );
  const insert = db.prepare(
    `INSERT INTO tokens (id, branch_id, name, scopes, channels, secret_hash, created_at)
     VALUES (@id, @branchId, @name, @scopes, @channels, @hash, @createdAt)`,
  );
  const revoke = db.prepare<[string, string]>(
    'UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
  );

  return {
    create(
      branchId: number,
      name: string,
      scopes: Scope[],
      channels: Channel[],
      audit: Audit,
    ): { token: Token; secret: string } {
      const { id, hash, tokenString } = newToken();
      const createdAt = new Date().toISOString();
      const token = { id, branchId, name, scopes, channels, createdAt, revokedAt: null };
      db.transaction(() => {
        insert.run({
          id,
          branchId,
          name,
          scopes: scopes.join(','),
          channels: channels.join(','),
          hash,
          createdAt,
        });
        events.record(tokenEvent('token.created', token), audit, events.placeOf(branchId));
      })();
      onWrite();
      return { token, secret: tokenString };
    },
    /** The live token the string names, or undefined (unknown, wrong secret or revoked). */
    authenticate(tokenString: string): Token | undefined {
      const parts = parseTokenString(tokenString);
      const row = parts && byId.get(parts.id);
      if (!parts || !row || row.revoked_at !== null) return undefined;
      return secretMatches(parts.secret, row.secret_hash) ? tokenOf(row) : undefined;
    },
    list: () => all.all().map((r) => ({ ...tokenOf(r), branch: r.branch, tenant: r.host })),
    revoke(id: string, audit: Audit): boolean {
      const revoked = db.transaction(() => {
        if (revoke.run(new Date().toISOString(), id).changes === 0) return false;
        const token = tokenOf(byId.get(id)!);
        events.record(tokenEvent('token.deleted', token), audit, events.placeOf(token.branchId));
        return true;
      })();
      onWrite();
      return revoked;
    },
  };
}
