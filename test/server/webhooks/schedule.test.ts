/** The retry schedule: the steps, the ±20 % jitter from the injected random, Retry-After's bounds. */
import { describe, expect, it } from 'vitest';
import { nextRetryDelay, RETRY_STEPS_MS } from '../../../src/server/webhooks/schedule.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const middle = () => 0.5; // no jitter
const low = () => 0; // −20 %
const high = () => 0.999_999; // just under +20 %

describe('nextRetryDelay', () => {
  it.each([
    [1, 5 * S],
    [2, 5 * M],
    [3, 30 * M],
    [4, 2 * H],
    [5, 5 * H],
    [6, 10 * H],
    [7, 10 * H],
  ])('after %i failed attempts: %i ms', (failed, ms) => {
    expect(nextRetryDelay(failed, { random: middle })).toBe(ms);
    expect(nextRetryDelay(failed, { random: low })).toBe(ms * 0.8);
    expect(nextRetryDelay(failed, { random: high })).toBeLessThan(ms * 1.2);
    expect(nextRetryDelay(failed, { random: high })).toBeGreaterThan(ms * 1.19);
  });

  it('gives up after the eighth attempt (the first and seven retries) fails', () => {
    expect(RETRY_STEPS_MS).toHaveLength(7);
    expect(nextRetryDelay(8, { random: middle })).toBeNull();
    expect(nextRetryDelay(20, { random: middle, retryAfterMs: 1000 })).toBeNull();
  });

  it('refuses a count below 1 (no attempt failed yet has no retry)', () => {
    expect(() => nextRetryDelay(0, { random: middle })).toThrow(/at least 1/);
  });

  it.each([
    // [failed, Retry-After, expected]: longer than the step is honoured up to the next step
    [1, 60 * S, 60 * S],
    [1, 10 * M, 5 * M],
    [2, 20 * M, 20 * M],
    [2, 3 * H, 30 * M],
    [6, 24 * H, 10 * H],
    [7, 24 * H, 10 * H],
  ])('after %i failures, Retry-After %i ms waits %i ms', (failed, retryAfterMs, ms) => {
    expect(nextRetryDelay(failed, { random: middle, retryAfterMs })).toBe(ms);
  });

  it('a Retry-After shorter than the jittered step does not shorten it', () => {
    expect(nextRetryDelay(2, { random: low, retryAfterMs: 1000 })).toBe(4 * M);
    expect(nextRetryDelay(1, { random: middle, retryAfterMs: 0 })).toBe(5 * S);
  });
});
