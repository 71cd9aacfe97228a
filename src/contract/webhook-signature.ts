/**
 * Standard Webhooks 1.0 signatures: the one rule the service signs deliveries with and
 * `roster webhooks listen` verifies them with. A secret is `whsec_` + base64 of the HMAC key;
 * the signature of a delivery is `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`,
 * several space separated while a rotated secret still signs beside the new one.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** How far a delivery's timestamp may be from the receiver's clock (the standard's 5 minutes). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

/** Fewer key bytes than this is not a secret worth the name (the service makes 32). */
const MIN_KEY_BYTES = 16;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A fresh secret: 32 random bytes (the contract asks 24 or more). */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Whether `s` is `whsec_` + canonical base64 of at least 16 bytes. */
export function isWebhookSecret(s: string): boolean {
  return keyOf(s) !== undefined;
}

function keyOf(secret: string): Buffer | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(SECRET_PREFIX.length);
  // Node's base64 decoder skips what it cannot read; a strict check first, so a pasted secret
  // with a character lost or added is refused instead of silently making another key.
  if (!BASE64.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= MIN_KEY_BYTES ? key : undefined;
}

function keyFor(secret: string): Buffer {
  const key = keyOf(secret);
  if (!key) {
    throw new Error(
      `a webhook secret is '${SECRET_PREFIX}' followed by the base64 of at least ${MIN_KEY_BYTES} bytes (as 'roster webhooks add' printed it)`,
    );
  }
  return key;
}

function mac(key: Buffer, id: string, timestampSeconds: number, body: string | Uint8Array) {
  return createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest();
}

/**
 * The `webhook-signature` header for a delivery: one `v1,…` per secret, space separated. The
 * body is signed as sent (a string as its UTF-8 bytes).
 */
export function signatures(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): string {
  return secrets
    .map((s) => `v1,${mac(keyFor(s), id, timestampSeconds, body).toString('base64')}`)
    .join(' ');
}

export type Verification = { ok: true } | { ok: false; reason: string };

/**
 * Checks a delivery as a receiver must: over the RAW body bytes (before any JSON parsing, which
 * would change them), the timestamp within 5 minutes of `nowSeconds` (a replayed old delivery is
 * refused), and at least one `v1` signature made with one of `secrets`, compared in constant
 * time. Header names in any case. The reason says what a receiver's author can act on.
 */
export function verifySignature(input: {
  secrets: readonly string[];
  headers: Record<string, string | string[] | undefined>;
  body: string | Uint8Array;
  nowSeconds: number;
}): Verification {
  const header = (name: string) => {
    const key = Object.keys(input.headers).find((k) => k.toLowerCase() === name);
    const value = key === undefined ? undefined : input.headers[key];
    return Array.isArray(value) ? value[0] : value;
  };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signature = header('webhook-signature');
  const missing = [
    ['webhook-id', id],
    ['webhook-timestamp', timestamp],
    ['webhook-signature', signature],
  ].filter(([, v]) => !v);
  if (missing.length > 0) {
    return { ok: false, reason: `missing header ${missing.map(([n]) => n).join(', ')}` };
  }
  if (!/^\d{1,12}$/.test(timestamp!)) {
    return { ok: false, reason: 'webhook-timestamp is not Unix seconds' };
  }
  const ts = Number(timestamp);
  const off = ts - input.nowSeconds;
  if (Math.abs(off) > TIMESTAMP_TOLERANCE_SECONDS) {
    const when = off < 0 ? 'old' : 'in the future';
    return {
      ok: false,
      reason: `timestamp ${Math.abs(off)} s ${when} (more than ${TIMESTAMP_TOLERANCE_SECONDS} s: a replay, or a clock to set right)`,
    };
  }
  const expected = input.secrets.map((s) => mac(keyFor(s), id!, ts, input.body));
  const given = signature!
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  const match = given.some((g) =>
    expected.some((e) => g.length === e.length && timingSafeEqual(g, e)),
  );
  return match
    ? { ok: true }
    : { ok: false, reason: 'no signature matches this secret (another secret, or a changed body)' };
}
