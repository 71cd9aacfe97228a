/**
 * Signed CDN URLs: `?expires=<unix seconds>&signature=<base64url HMAC-SHA256>` over the public
 * path and the expiry, with a per-data-dir secret. Expiries are rounded up to the hour, so the
 * same file listed twice within an hour gets the same URL (browser and CDN caches keep working).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_SIGNED_URL_TTL_SECONDS = 24 * 60 * 60;
const ROUND_SECONDS = 60 * 60;

export type Verdict = 'valid' | 'expired' | 'invalid';

export interface UrlSigner {
  /** The query string (without `?`) that makes `path` fetchable until the rounded expiry. */
  sign(path: string, nowMs?: number): string;
  verify(path: string, expires: unknown, signature: unknown, nowMs?: number): Verdict;
}

export function urlSigner(secret: Buffer, ttlSeconds = DEFAULT_SIGNED_URL_TTL_SECONDS): UrlSigner {
  const mac = (path: string, expires: string) =>
    createHmac('sha256', secret).update(`${expires}\n${path}`).digest();
  return {
    sign(path, nowMs = Date.now()) {
      const at = Math.floor(nowMs / 1000) + ttlSeconds;
      const expires = String(Math.ceil(at / ROUND_SECONDS) * ROUND_SECONDS);
      return `expires=${expires}&signature=${mac(path, expires).toString('base64url')}`;
    },
    verify(path, expires, signature, nowMs = Date.now()) {
      if (typeof expires !== 'string' || typeof signature !== 'string') return 'invalid';
      if (!/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid';
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== 32 || !timingSafeEqual(given, mac(path, expires))) return 'invalid';
      return Number(expires) * 1000 <= nowMs ? 'expired' : 'valid';
    },
  };
}
