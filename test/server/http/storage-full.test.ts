/**
 * A database that cannot grow (SQLite's max_page_count: the same SQLITE_FULL a full disk gives)
 * answers writes 507 in the envelope, while reads and deletes go on. The real full disk, with
 * files too, is in test/faults/disk-full.test.ts.
 */
import { expect, test } from 'vitest';
import { sqliteHandle } from '../../../src/store/sqlite/handle.js';
import { jsonBody, serverForFile, type TestServer, V3 } from '../../helpers/server.js';

const s = await serverForFile();

test('writes that need room are 507; reads and deletes keep working', async () => {
  const keep = await s.req(
    'POST',
    '/api/users',
    jsonBody({ email: 'keep@example.com', externalId: 'k' }),
  );
  const gone = await s.req(
    'POST',
    '/api/users',
    jsonBody({ email: 'gone@example.com', externalId: 'g' }),
  );
  expect(gone.status).toBe(201);
  // SQLite's own limit stands in for a full disk (the fault suite fills a real one).
  const db = sqliteHandle(s.store);
  const pages = db.pragma('page_count', { simple: true }) as number;
  db.pragma(`max_page_count = ${pages}`);
  try {
    const body = { email: 'x@example.com', profile: { cf_big: 'y'.repeat(1000) } };
    let full: Awaited<ReturnType<TestServer['req']>> | undefined;
    for (let i = 0; i < 200 && !full; i++) {
      const r = await s.req(
        'POST',
        '/api/users',
        jsonBody({ ...body, email: `x${i}@example.com` }),
      );
      if (r.status !== 201) full = r;
    }
    expect(full?.status).toBe(507);
    expect(full?.json).toMatchObject({ identifier: 50700, type: 'InsufficientStorageException' });
    expect(full?.json.message).toContain('storage is full');
    expect((await s.req('GET', '/api/users/k', { headers: { accept: V3 } })).status).toBe(200);
    expect((await s.req('DELETE', '/api/users/g')).status).toBe(202);
    expect(s.logs.filter((l) => l.startsWith('error'))).toEqual([]);
  } finally {
    db.pragma('max_page_count = 4294967294');
  }
  expect(keep.status).toBe(201);
});
