import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { validating } from '../helpers/openapi-validation.js';
import { jsonBody, type StartServer, type TestServer, V3 } from '../helpers/server.js';

/**
 * Every edge of the user state machine (docs/decisions.md "Users"): pending → activated only with a secret;
 * deactivated → activated only for a user who was activated before (else back to pending).
 */
export function userStatesSuite(start: StartServer) {
  let s: TestServer;
  let n = 0;
  beforeAll(async () => {
    s = validating(await start());
  });
  afterAll(() => s.close());

  const make = async (body: Record<string, unknown> = {}) => {
    const r = await s.req(
      'POST',
      '/api/users',
      jsonBody({ email: `st${++n}@example.com`, ...body }),
    );
    expect(r.status).toBe(201);
    return r.json as { id: string; status: string; activatedAt: string | null };
  };
  const put = (id: string, body: unknown) => s.req('PUT', `/api/users/${id}`, jsonBody(body));
  const get = async (id: string) =>
    (await s.req('GET', `/api/users/${id}`, { headers: { accept: V3 } })).json;

  describe('the version counter (ETags)', () => {
    test('is 1 on create and counts every write', async () => {
      const tenant = (await s.store.tenants.byHost('*'))!;
      const branch = (await s.store.branches.byName(tenant.id, 'main'))!;
      const version = async (id: string) => (await s.store.users.find(branch.id, id))?.version;
      const u = await make();
      expect(await version(u.id)).toBe(1);
      await put(u.id, { profile: { firstName: 'Ada' } });
      await put(u.id, { profile: { firstName: 'Ada' } });
      expect(await version(u.id)).toBe(3);
    });
  });

  describe('user status transitions', () => {
    test('created without a secret: pending; with one: activated', async () => {
      expect((await make()).status).toBe('pending');
      const a = await make({ secret: 'one-time-pass' });
      expect(a.status).toBe('activated');
      expect(a.activatedAt).not.toBeNull();
    });

    test('pending → activated needs a secret (409 without, activated with)', async () => {
      const u = await make();
      const refused = await put(u.id, { status: 'activated' });
      expect(refused.status).toBe(409);
      expect(refused.json.details).toEqual([
        { field: 'status', message: 'a pending user needs a secret to be activated' },
      ]);
      const withSecret = await put(u.id, { status: 'activated', secret: 'one-time-pass' });
      expect(withSecret.json.status).toBe('activated');
      const viaSecret = await make();
      expect((await put(viaSecret.id, { secret: 'one-time-pass' })).json.status).toBe('activated');
    });

    test('a never-activated user who was deactivated goes back to pending, not activated', async () => {
      const u = await make();
      expect((await put(u.id, { status: 'deactivated' })).json.status).toBe('deactivated');
      const back = await put(u.id, { status: 'activated' });
      expect(back.status).toBe(200);
      expect(back.json).toMatchObject({ status: 'pending', activatedAt: null });
      expect((await get(u.id)).status).toBe('pending');
    });

    test('… unless given a secret on the way back', async () => {
      const u = await make();
      await put(u.id, { status: 'deactivated' });
      const back = await put(u.id, { status: 'activated', secret: 'one-time-pass' });
      expect(back.json.status).toBe('activated');
      expect(back.json.activatedAt).not.toBeNull();
    });

    test('an activated user deactivated and activated again gets a new activatedAt', async () => {
      const u = await make({ secret: 'one-time-pass' });
      await put(u.id, { status: 'deactivated' });
      const back = await put(u.id, { status: 'activated' });
      expect(back.json.status).toBe('activated');
      expect(back.json.activatedAt >= (u.activatedAt ?? '')).toBe(true);
    });

    test('setting the current status again changes nothing', async () => {
      const u = await make();
      await put(u.id, { status: 'deactivated' });
      const again = await put(u.id, { status: 'deactivated' });
      expect(again.json.status).toBe('deactivated');
      const a = await make({ secret: 'one-time-pass' });
      expect((await put(a.id, { status: 'activated' })).json.activatedAt).toBe(a.activatedAt);
    });
  });
}
