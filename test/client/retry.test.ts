import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY,
  errorCode,
  isRetryableNetworkError,
  isRetryableStatus,
  parseRetryAfter,
} from '../../src/client/retry.js';

describe('retry policy', () => {
  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('draws full jitter below the capped exponential ceiling', () => {
    const opts = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelay(0, opts, () => 0.999)).toBe(99);
    expect(backoffDelay(3, opts, () => 0.5)).toBe(400);
    expect(backoffDelay(10, opts, () => 0.999)).toBe(999);
    expect(backoffDelay(2, opts, () => 0)).toBe(0);
  });

  it('retries POST only where the service cannot have acted', () => {
    expect(isRetryableStatus(429, 'POST')).toBe(true);
    expect(isRetryableStatus(503, 'POST')).toBe(false);
    expect(isRetryableStatus(503, 'PUT')).toBe(true);
    expect(isRetryableStatus(501, 'GET')).toBe(false);
    expect(isRetryableStatus(404, 'GET')).toBe(false);
    expect(isRetryableNetworkError('ECONNREFUSED', 'POST')).toBe(true);
    expect(isRetryableNetworkError('UND_ERR_SOCKET', 'POST')).toBe(false);
    expect(isRetryableNetworkError('UND_ERR_SOCKET', 'DELETE')).toBe(true);
    expect(isRetryableNetworkError('ENOTFOUND', 'GET')).toBe(false);
  });

  it('never retries a local error as if the network had failed', () => {
    expect(isRetryableNetworkError('ERR_STRING_TOO_LONG', 'GET')).toBe(false);
    expect(isRetryableNetworkError('ERR_INVALID_ARG_TYPE', 'GET')).toBe(false);
    expect(isRetryableNetworkError(undefined, 'GET')).toBe(false);
    expect(isRetryableNetworkError('ECONNRESET', 'GET')).toBe(true);
    expect(isRetryableNetworkError('UND_ERR_HEADERS_TIMEOUT', 'GET')).toBe(true);
  });

  it('finds the code inside wrapped and aggregate errors', () => {
    const refused = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    expect(errorCode(new AggregateError([refused]))).toBe('ECONNREFUSED');
    expect(errorCode(new Error('wrapped', { cause: refused }))).toBe('ECONNREFUSED');
    expect(errorCode(new Error('plain'))).toBeUndefined();
  });
});
