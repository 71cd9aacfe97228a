import { describe, expect, test } from 'vitest';
import { versionsOf } from '../../../src/contract/versions.js';
import {
  MAX_REMEMBERED_ACCEPTS,
  parseAccept,
  pickVersion,
} from '../../../src/server/http/negotiation.js';
import { serverForTest, startServer, V2, V3 } from '../../helpers/server.js';
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

test('remembered Accept headers answer as parsed ones, past the bound and for a 406 too', async () => {
  const s = await serverForTest();
  await s.req('POST', '/api/users', {
    headers: { 'content-type': V3 },
    body: JSON.stringify({ email: 'm@example.com', externalId: 'm-1' }),
  });
  const versionFor = async (accept: string) => {
    const r = await s.req('GET', '/api/users/m-1', { headers: { accept } });
    return r.status === 200 ? r.headers['content-type'] : r.status;
  };
  for (let round = 0; round < 2; round++) {
    expect(await versionFor(`${V2}, ${V3};q=0.5`)).toBe(V2);
    expect(await versionFor('text/html')).toBe(406);
    // More distinct headers than are remembered: each still answers by its own content.
    for (let i = 0; i <= MAX_REMEMBERED_ACCEPTS; i++) {
      expect(await versionFor(`text/x-${i}, ${i % 2 ? V2 : V3}`)).toBe(i % 2 ? V2 : V3);
    }
  }
});

negotiationSuite(startServer);
