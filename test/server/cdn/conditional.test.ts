import { describe, expect, test } from 'vitest';
import {
  noneMatch,
  notModifiedSince,
  parseRange,
  rangeStillValid,
} from '../../../src/server/cdn/conditional.js';

describe('parseRange', () => {
  test.each([
    ['bytes=0-99', 1000, { start: 0, end: 99 }],
    ['bytes=900-', 1000, { start: 900, end: 999 }],
    ['bytes=900-5000', 1000, { start: 900, end: 999 }],
    ['bytes=-100', 1000, { start: 900, end: 999 }],
    ['bytes=-5000', 1000, { start: 0, end: 999 }],
    ['bytes=999-999', 1000, { start: 999, end: 999 }],
    ['bytes=1000-', 1000, 'unsatisfiable'],
    ['bytes=-0', 1000, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=-1', 0, 'unsatisfiable'],
    ['bytes=5-1', 1000, undefined],
    ['bytes=0-1,5-6', 1000, undefined],
    ['items=0-1', 1000, undefined],
    ['bytes=-', 1000, undefined],
    ['bytes=a-b', 1000, undefined],
    [undefined, 1000, undefined],
  ] as const)('%s of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('validators', () => {
  const etag = '"abc"';
  const modified = new Date('2026-01-01T10:00:00.500Z');
  test('If-None-Match compares weakly and understands lists and *', () => {
    expect(noneMatch('"abc"', etag)).toBe(true);
    expect(noneMatch('W/"abc"', etag)).toBe(true);
    expect(noneMatch('"x", "abc"', etag)).toBe(true);
    expect(noneMatch('*', etag)).toBe(true);
    expect(noneMatch('"abd"', etag)).toBe(false);
    expect(noneMatch('', etag)).toBe(false);
  });
  test('If-Range needs the strong ETag or a date not before the change', () => {
    expect(rangeStillValid(undefined, etag, modified)).toBe(true);
    expect(rangeStillValid('"abc"', etag, modified)).toBe(true);
    expect(rangeStillValid('W/"abc"', etag, modified)).toBe(false);
    expect(rangeStillValid('"old"', etag, modified)).toBe(false);
    expect(rangeStillValid(modified.toUTCString(), etag, modified)).toBe(true);
    expect(rangeStillValid('Wed, 31 Dec 2025 10:00:00 GMT', etag, modified)).toBe(false);
  });
  test('If-Modified-Since works at second precision', () => {
    expect(notModifiedSince(modified.toUTCString(), modified)).toBe(true);
    expect(notModifiedSince('Wed, 31 Dec 2025 10:00:00 GMT', modified)).toBe(false);
    expect(notModifiedSince('garbage', modified)).toBe(false);
  });
});
