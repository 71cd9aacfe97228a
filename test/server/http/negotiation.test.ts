import { describe, expect, test } from 'vitest';
import { versionsOf } from '../../../src/contract/versions.js';
import { parseAccept, pickVersion } from '../../../src/server/http/negotiation.js';
import { startServer, V2, V3 } from '../../helpers/server.js';
import { negotiationSuite } from '../../suites/negotiation.suite.js';

describe('parseAccept / pickVersion', () => {
  const entries = versionsOf('/users/{userId}', 'GET', 'accept');

  test('orders by q, keeps header order for ties, drops q=0', () => {
    expect(parseAccept('a/b;q=0.5, c/d, e/f;q=0, g/h').map((r) => r.type)).toEqual([
      'c/d',
      'g/h',
      'a/b',
    ]);
  });

  test('no header or a wildcard picks the oldest version; unknown types pick none', () => {
    expect(pickVersion(undefined, entries, 'service')?.version).toBe('v1');
    expect(pickVersion('*/*', entries, 'service')?.version).toBe('v1');
    expect(pickVersion(`text/html, ${V3.toUpperCase()}`, entries, 'service')?.version).toBe('v3');
    expect(pickVersion(`${V3};q=0.1, ${V2}`, entries, 'service')?.version).toBe('v2');
    expect(pickVersion('text/html', entries, 'service')).toBeUndefined();
    expect(pickVersion(V3, entries, 'acme')).toBeUndefined();
  });
});

negotiationSuite(startServer);
