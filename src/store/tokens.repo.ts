/**
 * API tokens. The token string is standard base64 of `<tokenId>:<secret>`, so
 * `Authorization: Basic <token>` is well-formed Basic auth. Only a SHA-256 of the 256-bit random
 * secret is stored (a slow hash adds nothing at that entropy) and compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Scope } from '../contract/scopes.js';
import type { Db } from './db.js';
import { newObjectId, OBJECT_ID } from './ids.js';

export interface Token {
  id: string;
  branchId: number;
  name: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt: string | null;
}

type TokenRow = {
  id: string;
  branch_id: number;
  name: string;
  scopes: string;
  secret_hash: Buffer;
  created_at: string;
  revoked_at: string | null;
};

const tokenOf = (r: TokenRow): Token => ({
  id: r.id,
  branchId: r.branch_id,
  name: r.name,
  scopes: r.scopes.split(',').filter(Boolean) as Scope[],
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Splits a token string into id and secret; undefined when it is not one of ours. */
export function parseTokenString(token: string): { id: string; secret: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token) || token.length > 200) return undefined;
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const id = decoded.slice(0, colon);
  const secret = decoded.slice(colon + 1);
  if (colon < 0 || !OBJECT_ID.test(id) || secret.length === 0) return undefined;
  return { id, secret };
}

export function tokensRepo(db: Db, onWrite: () => void = () => {}) {
  const byId = db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE id = ?');
  const all = db.prepare<[], TokenRow & { branch: string; host: string }>(
    `SELECT tokens.*, branches.name AS branch, tenants.host AS host FROM tokens
     JOIN branches ON branches.id = tokens.branch_id JOIN tenants ON tenants.id = branches.tenant_id
     ORDER BY tokens.created_at, tokens.id`,
  );
  const insert = db.prepare(
    `INSERT INTO tokens (id, branch_id, name, scopes, secret_hash, created_at)
     VALUES (@id, @branchId, @name, @scopes, @hash, @createdAt)`,
  );
  const revoke = db.prepare<[string, string]>(
    'UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
  );

  return {
    /** Creates a token; the returned string is shown once and never stored. */
    create(branchId: number, name: string, scopes: Scope[]): { token: Token; secret: string } {
      const id = newObjectId();
      const secret = randomBytes(32).toString('base64url');
      const createdAt = new Date().toISOString();
      insert.run({ id, branchId, name, scopes: scopes.join(','), hash: sha256(secret), createdAt });
      onWrite();
      const token = { id, branchId, name, scopes, createdAt, revokedAt: null };
      return { token, secret: Buffer.from(`${id}:${secret}`).toString('base64') };
    },
    /** The live token the string names, or undefined (unknown, wrong secret or revoked). */
    authenticate(tokenString: string): Token | undefined {
      const parts = parseTokenString(tokenString);
      const row = parts && byId.get(parts.id);
      if (!parts || !row || row.revoked_at !== null) return undefined;
      return timingSafeEqual(sha256(parts.secret), row.secret_hash) ? tokenOf(row) : undefined;
    },
    list: () => all.all().map((r) => ({ ...tokenOf(r), branch: r.branch, tenant: r.host })),
    /** Revokes a token; false when no live token has that id. */
    revoke(id: string): boolean {
      const revoked = revoke.run(new Date().toISOString(), id).changes > 0;
      onWrite();
      return revoked;
    },
  };
}
