/**
 * Standard Webhooks 1.0 signatures, checked against the reference `standardwebhooks` package in
 * both directions (ours signs → theirs verifies; theirs signs → ours verifies), never ours
 * against ours.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  isWebhookSecret,
  newWebhookSecret,
  signatures,
  TIMESTAMP_TOLERANCE_SECONDS,
  verifySignature,
} from '../../src/contract/webhook-signature.js';

const secretA = `whsec_${randomBytes(24).toString('base64')}`;
const secretB = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ type: 'user.created', timestamp: 't', data: { name: 'Zoë ✓' } });
const id = 'msg_6b15c6e5';
const now = () => Math.floor(Date.now() / 1000);

const headersFor = (signature: string, ts = now()) => ({
  'webhook-id': id,
  'webhook-timestamp': String(ts),
  'webhook-signature': signature,
});

describe('signatures → verified by the standardwebhooks package', () => {
  it('one secret: a single v1 signature', () => {
    const ts = now();
    const sig = signatures([secretA], id, ts, body);
    expect(sig).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    expect(new Webhook(secretA).verify(body, headersFor(sig, ts))).toEqual(JSON.parse(body));
  });

  it('two secrets (a rotation): space separated, each verifies alone', () => {
    const ts = now();
    const sig = signatures([secretA, secretB], id, ts, body);
    expect(sig.split(' ')).toHaveLength(2);
    for (const secret of [secretA, secretB]) {
      expect(() => new Webhook(secret).verify(body, headersFor(sig, ts))).not.toThrow();
    }
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    expect(() => new Webhook(other).verify(body, headersFor(sig, ts))).toThrow();
  });

  it('a body with multi-byte characters is signed as its UTF-8 bytes', () => {
    const ts = now();
    const sig = signatures([secretA], id, ts, body);
    expect(() => new Webhook(secretA).verify(Buffer.from(body), headersFor(sig, ts))).not.toThrow();
  });

  it('the same as the reference signs', () => {
    const ts = now();
    expect(signatures([secretA], id, ts, body)).toBe(
      new Webhook(secretA).sign(id, new Date(ts * 1000), body),
    );
  });
});

describe('verifySignature ← signed by the standardwebhooks package', () => {
  const signed = (secret: string, ts: number, payload = body) =>
    new Webhook(secret).sign(id, new Date(ts * 1000), payload);
  const check = (
    headers: Record<string, string | undefined>,
    raw: string | Buffer = body,
    at = now(),
  ) => verifySignature({ secrets: [secretA], headers, body: raw, nowSeconds: at });

  it('accepts a valid delivery, over the raw bytes too', () => {
    const ts = now();
    expect(check(headersFor(signed(secretA, ts), ts))).toEqual({ ok: true });
    expect(check(headersFor(signed(secretA, ts), ts), Buffer.from(body))).toEqual({ ok: true });
  });

  it('accepts a header with two signatures of which one is ours, and capitalised header names', () => {
    const ts = now();
    const sig = `${signed(secretB, ts)} ${signed(secretA, ts)}`;
    const headers = { 'Webhook-Id': id, 'Webhook-Timestamp': String(ts), 'Webhook-Signature': sig };
    expect(check(headers)).toEqual({ ok: true });
  });

  it('refuses another secret, a changed body, a changed id, and says why', () => {
    const ts = now();
    const other = check(headersFor(signed(secretB, ts), ts));
    expect(other).toEqual({ ok: false, reason: expect.stringMatching(/no signature matches/) });
    expect(check(headersFor(signed(secretA, ts), ts), `${body} `).ok).toBe(false);
    expect(check({ ...headersFor(signed(secretA, ts), ts), 'webhook-id': 'msg_other' }).ok).toBe(
      false,
    );
  });

  it('refuses a timestamp more than 5 minutes off, either way, naming the difference', () => {
    const at = 1_800_000_000;
    for (const ts of [at - TIMESTAMP_TOLERANCE_SECONDS - 1, at + TIMESTAMP_TOLERANCE_SECONDS + 1]) {
      const result = check(headersFor(signed(secretA, ts), ts), body, at);
      expect(result).toEqual({ ok: false, reason: expect.stringMatching(/timestamp .*301 s/) });
    }
    const edge = at - TIMESTAMP_TOLERANCE_SECONDS;
    expect(check(headersFor(signed(secretA, edge), edge), body, at)).toEqual({ ok: true });
  });

  it('refuses missing headers, a timestamp that is not a number, and a non-v1 signature', () => {
    const ts = now();
    expect(check({ 'webhook-id': id }).ok).toBe(false);
    expect(check(headersFor(signed(secretA, ts), ts)).ok).toBe(true);
    expect(check({ ...headersFor(signed(secretA, ts)), 'webhook-timestamp': '12abc' })).toEqual({
      ok: false,
      reason: expect.stringMatching(/webhook-timestamp/),
    });
    const v2 = signed(secretA, ts).replace(/^v1,/, 'v2,');
    expect(check(headersFor(v2, ts)).ok).toBe(false);
  });
});

describe('secrets', () => {
  it('a new secret is whsec_ + base64 of 32 random bytes, and the reference accepts it', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newWebhookSecret()).not.toBe(secret);
    expect(isWebhookSecret(secret)).toBe(true);
    const ts = now();
    const sig = signatures([secret], id, ts, body);
    expect(() => new Webhook(secret).verify(body, headersFor(sig, ts))).not.toThrow();
  });

  it('isWebhookSecret refuses what is not whsec_ + base64 of at least 16 bytes', () => {
    for (const bad of [
      '',
      'whsec_',
      'abc',
      'whsec_not base64!',
      `whsec_${randomBytes(8).toString('base64')}`,
    ]) {
      expect(isWebhookSecret(bad)).toBe(false);
    }
  });

  it('signatures refuses a malformed secret with a message naming the expected form', () => {
    expect(() => signatures(['whsec_!!'], id, now(), body)).toThrow(/whsec_/);
  });
});
