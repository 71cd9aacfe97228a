/**
 * One-time passwords and recovery codes are low-entropy secrets people type: stored as scrypt
 * hashes (salted, memory-hard), computed off the event loop. Each hash names its cost, so a
 * hash verifies whatever the cost the server now makes new ones with.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt's cost N for new hashes: ~50 ms of one core and 16 MB each (r = 8). */
export const SECRET_HASH_COST = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function derive(secret: string, salt: Buffer, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, { N: n, r: R, p: P }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** `cost` must be a power of two above 1 (scrypt's rule); ServerConfig.secretHashCost sets it. */
export async function hashSecret(secret: string, cost = SECRET_HASH_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, cost);
  return `scrypt$${cost}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  const cost = Number(n);
  if (scheme !== 'scrypt' || r !== String(R) || p !== String(P) || !salt || !key) return false;
  // A cost scrypt refuses (not a power of two) or dearer than ours: not a hash this service made.
  const powerOfTwo = Number.isInteger(cost) && cost >= 2 && (cost & (cost - 1)) === 0;
  if (!powerOfTwo || cost > SECRET_HASH_COST) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(secret, Buffer.from(salt, 'base64'), cost);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
