import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../../../src/server/app.js';
import { TEST_AUDIT } from '../../helpers/audit.js';
import { validating } from '../../helpers/openapi-validation.js';
import { requester, startServer, type TestServer, USERS_V2 } from '../../helpers/server.js';
import { userRow } from '../../helpers/user-row.js';
import { usersCursorSuite } from '../../suites/users-cursor.suite.js';
import { usersListSuite } from '../../suites/users-list.suite.js';

usersListSuite(startServer);
usersCursorSuite(startServer);

describe('a search matching more users than the server counts (searchCountUpTo)', () => {
  let roster: TestServer;
  let platform: TestServer;
  beforeAll(async () => {
    roster = validating(await startServer({ searchCountUpTo: 2 }));
    platform = await startServer({ searchCountUpTo: 2, likePlatform: true });
    for (const s of [roster, platform]) {
      const tenant = (await s.store.tenants.byHost('*'))!;
      const branch = (await s.store.branches.byName(tenant.id, 'main'))!;
      for (const last_name of ['Meyer', 'Miller', 'Moss', 'Lee']) {
        await s.store.users.insert(
          userRow({ tenant_id: tenant.id, branch_id: branch.id, last_name }),
          TEST_AUDIT,
        );
      }
    }
  });
  afterAll(async () => {
    await roster?.close();
    await platform?.close();
  });
  const list = (s: TestServer, qs: string) =>
    s.req('GET', `/api/users${qs}`, { headers: { accept: USERS_V2 } });

  test('answers the bound as total with totalExact: false; pages and the cursor go on', async () => {
    const first = await list(roster, '?query=m&limit=2');
    expect(first.json).toMatchObject({ total: 2, totalExact: false, limit: 2, offset: 0 });
    const second = await list(roster, `?query=m&limit=2&after=${first.json.next}`);
    expect(second.json.data).toHaveLength(1);
    expect(second.json.total).toBe(2);
  });

  test('exact totals carry no flag: a search within the bound, and every list without a query', async () => {
    for (const qs of ['?query=le', '?limit=1']) {
      const r = await list(roster, qs);
      expect(r.json).not.toHaveProperty('totalExact');
    }
    expect((await list(roster, '?limit=1')).json.total).toBe(4);
  });

  test('likePlatform: exact, as the platform', async () => {
    const r = await platform.req('GET', '/api/users?query=m&limit=2');
    expect(r.json.total).toBe(3);
    expect(r.json).not.toHaveProperty('totalExact');
  });
});

describe('list cursors and replicas', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
    for (const last_name of ['Adams', 'Baker', 'Clark']) {
      const tenant = (await s.store.tenants.byHost('*'))!;
      const branch = (await s.store.branches.byName(tenant.id, 'main'))!;
      await s.store.users.insert(
        userRow({ tenant_id: tenant.id, branch_id: branch.id, last_name }),
        TEST_AUDIT,
      );
    }
  });
  afterAll(() => s?.close());

  test("another app on the same store continues one's cursor (the key is the store's secret)", async () => {
    const first = await s.req('GET', '/api/users?limit=1', { headers: { accept: USERS_V2 } });
    const replica = await createApp({
      store: s.store,
      config: { dataDir: s.dataDir, vendor: 'service', maxUploadBytes: 1024 },
    });
    const { url } = await replica.listen(0);
    try {
      const r = await requester(url, s.adminToken)(
        'GET',
        `/api/users?limit=1&after=${encodeURIComponent(first.json.next)}`,
        { headers: { accept: USERS_V2 } },
      );
      expect(r.status, r.text).toBe(200);
      expect(r.json.data[0].profile.lastName).toBe('Baker');
    } finally {
      await replica.close(0);
    }
  });
});
