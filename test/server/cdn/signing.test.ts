import { describe, expect, test } from 'vitest';
import { urlSigner } from '../../../src/server/cdn/signing.js';

const signer = urlSigner(Buffer.alloc(32, 7), 24 * 3600);
const now = Date.parse('2026-03-01T12:34:56Z');
const parts = (query: string) =>
  Object.fromEntries(new URLSearchParams(query)) as Record<string, string>;

describe('urlSigner', () => {
  test('signs a path until the hour after now + ttl; same hour, same URL', () => {
    const q = parts(signer.sign('a/b/c/d.png', now));
    expect(Number(q.expires)).toBe(Date.parse('2026-03-02T13:00:00Z') / 1000);
    expect(signer.sign('a/b/c/d.png', now + 60_000)).toBe(signer.sign('a/b/c/d.png', now));
    expect(signer.verify('a/b/c/d.png', q.expires, q.signature, now)).toBe('valid');
  });

  test('another path, expiry, secret or a mangled signature is invalid; late is expired', () => {
    const q = parts(signer.sign('a/b/c/d.png', now));
    expect(signer.verify('a/b/c/e.png', q.expires, q.signature, now)).toBe('invalid');
    expect(signer.verify('a/b/c/d.png', String(Number(q.expires) + 3600), q.signature, now)).toBe(
      'invalid',
    );
    const flipped = (q.signature![0] === 'A' ? 'B' : 'A') + q.signature!.slice(1);
    expect(signer.verify('a/b/c/d.png', q.expires, flipped, now)).toBe('invalid');
    expect(signer.verify('a/b/c/d.png', q.expires, `${q.signature}=`, now)).toBe('invalid');
    expect(signer.verify('a/b/c/d.png', q.expires, undefined, now)).toBe('invalid');
    expect(signer.verify('a/b/c/d.png', [q.expires], q.signature, now)).toBe('invalid');
    const other = urlSigner(Buffer.alloc(32, 8));
    expect(other.verify('a/b/c/d.png', q.expires, q.signature, now)).toBe('invalid');
    const later = Number(q.expires) * 1000;
    expect(signer.verify('a/b/c/d.png', q.expires, q.signature, later)).toBe('expired');
  });
});
