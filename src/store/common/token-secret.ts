/**
 * API token strings. A token is standard base64 of `<tokenId>:<secret>`, so
 * `Authorization: Basic <token>` is well-formed Basic auth. Only a SHA-256 of the 256-bit random
 * secret is stored (a slow hash adds nothing at that entropy) and compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { newObjectId, OBJECT_ID } from '../ids.js';

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

/** A new token: its id, the hash to store, and the string to show once. */
export function newToken(): { id: string; hash: Buffer; tokenString: string } {
  const id = newObjectId();
  const secret = randomBytes(32).toString('base64url');
  return {
    id,
    hash: sha256(secret),
    tokenString: Buffer.from(`${id}:${secret}`).toString('base64'),
  };
}

/** Whether `secret` is the one whose hash was stored. */
export const secretMatches = (secret: string, storedHash: Buffer): boolean =>
  timingSafeEqual(sha256(secret), storedHash);
