import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Scope } from '../../src/contract/scopes.js';
import { TEST_AUDIT } from '../helpers/audit.js';
import { sql } from '../helpers/database.js';
import { validating } from '../helpers/openapi-validation.js';
import { jsonBody, type StartServer, type TestServer, V3 } from '../helpers/server.js';

/** The auth behaviour, run against any server (in-process or `roster serve`). */
export function authSuite(start: StartServer) {
  let s: TestServer;
  beforeAll(async () => {
    s = validating(await start());
  });
  afterAll(() => s.close());

  describe('authentication', () => {
    test('missing, malformed and unknown tokens answer 401 40102 on every endpoint', async () => {
      const headers: (string | undefined)[] = [
        undefined,
        'Bearer abc',
        'Basic',
        'Basic !!!not-base64!!!',
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
        `Basic ${Buffer.from('6b0228ac94da91376d547a51:wrong').toString('base64')}`,
        `Basic ${'A'.repeat(5000)}`,
      ];
      for (const authorization of headers) {
        for (const [method, path] of [
          ['GET', '/api/users'],
          ['POST', '/api/users'],
          ['GET', '/api/users/x'],
          ['PUT', '/api/users/x'],
          ['DELETE', '/api/users/x'],
        ]) {
          const r = await s.req(method!, path!, {
            token: null,
            headers: authorization === undefined ? {} : { authorization },
          });
          expect(r.status, `${method} ${path} ${authorization}`).toBe(401);
          expect(r.json).toMatchObject({
            identifier: 40102,
            statusCode: 401,
            type: 'NotLoggedInException',
          });
        }
      }
    });

    test('a revoked token stops working at once', async () => {
      const token = await s.token();
      expect((await s.req('GET', '/api/users', { token })).status).toBe(200);
      const [, id] = /^([0-9a-f]{24}):/.exec(Buffer.from(token, 'base64').toString())!;
      await s.store.tokens.revoke(id!, TEST_AUDIT);
      expect((await s.req('GET', '/api/users', { token })).status).toBe(401);
    });

    test('tokens are stored hashed only', async () => {
      const token = await s.token();
      const secret = Buffer.from(token, 'base64').toString().split(':')[1]!;
      const rows = await sql(s.store, 'SELECT * FROM tokens');
      expect(JSON.stringify(rows)).not.toContain(secret);
    });

    test('the log never contains a token', async () => {
      await s.req('GET', '/api/users', {
        headers: { authorization: 'Basic bogus-token-value' },
        token: null,
      });
      expect(s.logs.join('\n')).not.toContain('bogus-token-value');
      expect(s.logs.join('\n')).not.toContain(s.adminToken);
    });
  });

  describe('scopes (CONTRACT table)', () => {
    const cases: [Scope[], string, string, number, number][] = [
      // scopes the token has, method, path, expected status, identifier
      [['users:write'], 'GET', '/api/users', 403, 40308],
      [['users:write'], 'GET', '/api/users/u-1', 403, 40308],
      [['users:read'], 'POST', '/api/users', 401, 40102],
      [['users:read'], 'PUT', '/api/users/u-1', 401, 40102],
      [['users:read'], 'DELETE', '/api/users/u-1', 403, 40308],
      [['media:read', 'media:write'], 'GET', '/api/users', 403, 40308],
    ];
    test.each(cases)('%j %s %s → %i', async (scopes, method, path, status, identifier) => {
      await s.req(
        'POST',
        '/api/users',
        jsonBody({ email: 'scoped@example.com', externalId: 'u-1' }),
      );
      const token = await s.token({ scopes });
      const r = await s.req(method, path, { token, ...jsonBody({ email: 'new@example.com' }) });
      expect(r.status).toBe(status);
      expect(r.json.identifier).toBe(identifier);
      if (status === 403) expect(r.json.message).toContain("branch 'main'");
      expect((await s.req('GET', '/api/users/u-1')).status).toBe(200);
    });

    test('read scope reads, write scope writes', async () => {
      const reader = await s.token({ scopes: ['users:read'] });
      expect((await s.req('GET', '/api/users', { token: reader })).status).toBe(200);
      const writer = await s.token({ scopes: ['users:write'] });
      const r = await s.req('POST', '/api/users', {
        token: writer,
        ...jsonBody({ email: 'w@example.com' }),
      });
      expect(r.status).toBe(201);
    });
  });

  describe('tenants and branches', () => {
    test('a token sees only its branch: other branches answer 404 and are absent from lists', async () => {
      const sales = await s.token({ branch: 'sales' });
      const created = await s.req('POST', '/api/users', {
        token: sales,
        ...jsonBody({ email: 'sales@example.com', externalId: 'sales-1' }),
      });
      expect(created.status).toBe(201);
      const id = created.json.id;
      expect((await s.req('GET', `/api/users/${id}`)).status).toBe(404);
      expect((await s.req('GET', '/api/users/sales-1')).status).toBe(404);
      expect((await s.req('PUT', `/api/users/${id}`, jsonBody({ role: 'reader' }))).status).toBe(
        404,
      );
      expect((await s.req('DELETE', `/api/users/${id}`)).status).toBe(404);
      const mainList = await s.req('GET', '/api/users?status=pending&limit=1000', {
        headers: { accept: V3.replace('user.v3', 'users.v2') },
      });
      expect(mainList.json.data.map((u: { id: string }) => u.id)).not.toContain(id);
      expect((await s.req('GET', `/api/users/${id}`, { token: sales })).status).toBe(200);
    });

    test('tenant by Host: a token works only on its tenant host; unknown hosts fall to *', async () => {
      const acme = await s.token({ tenant: 'acme.example.com' });
      const onAcme = { 'content-type': V3, host: 'acme.example.com' };
      const created = await s.req('POST', '/api/users', {
        token: acme,
        headers: onAcme,
        body: JSON.stringify({ email: 'acme@example.com' }),
      });
      expect(created.status).toBe(201);
      expect(created.headers.location).toMatch(
        /^http:\/\/acme\.example\.com\/api\/users\/[0-9a-f]{24}$/,
      );
      // The acme token on the default tenant's host, and the default token on acme's host: invalid.
      expect((await s.req('GET', '/api/users', { token: acme })).status).toBe(401);
      expect(
        (await s.req('GET', '/api/users', { headers: { host: 'ACME.example.com:8080' } })).status,
      ).toBe(401);
      expect(
        (
          await s.req('GET', '/api/users', {
            token: acme,
            headers: { host: 'Acme.Example.com:8080' },
          })
        ).status,
      ).toBe(200);
      // Any other host is the catch-all tenant.
      expect(
        (await s.req('GET', '/api/users', { headers: { host: 'whatever.test' } })).status,
      ).toBe(200);
    });
  });

  describe('channels: a token works where it was made for (tokens create --for)', () => {
    const scimGet = (token: string) =>
      s.req('GET', '/scim/v2/Users', {
        token: null,
        headers: { authorization: `Bearer ${token}`, accept: 'application/scim+json' },
      });

    test('a token made for SCIM is refused on the REST API (401 saying so), and works on /scim', async () => {
      const scim = await s.token({ channels: ['scim'] });
      expect((await scimGet(scim)).status).toBe(200);
      for (const [method, path] of [
        ['GET', '/api/users'],
        ['POST', '/api/users'],
        ['GET', '/api/branch'],
        ['GET', '/api/media'],
      ] as const) {
        const r = await s.req(method, path, {
          token: scim,
          ...jsonBody({ email: 'c@example.com' }),
        });
        expect(r.status, `${method} ${path}`).toBe(401);
        expect(r.json.identifier).toBe(40102);
        expect(r.json.message).toMatch(/made for SCIM/);
      }
    });

    test('a REST token is refused on /scim (401 naming --for scim); one made for both works on both', async () => {
      const rest = await s.token({ scopes: ['users:read'] });
      const refused = await scimGet(rest);
      expect(refused.status).toBe(401);
      expect(refused.json.detail).toMatch(/made for the REST API.*--for scim/);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="roster"');
      expect((await scimGet(s.adminToken)).status).toBe(401);
      const both = await s.token({ channels: ['api', 'scim'] });
      expect((await scimGet(both)).status).toBe(200);
      expect((await s.req('GET', '/api/users', { token: both })).status).toBe(200);
    });

    test('the REST API takes the token as Bearer too, as SCIM does', async () => {
      for (const scheme of ['Bearer', 'bearer']) {
        const r = await s.req('GET', '/api/users', {
          token: null,
          headers: { authorization: `${scheme} ${s.adminToken}` },
        });
        expect(r.status, scheme).toBe(200);
      }
      const bad = await s.req('GET', '/api/users', {
        token: null,
        headers: { authorization: 'Bearer bm90OmF0b2tlbg==' },
      });
      expect(bad.status).toBe(401);
    });
  });

  describe('GET /api/branch', () => {
    test("names the token's branch and, as a Roster extension, its scopes", async () => {
      const token = await s.token({ branch: 'sales', scopes: ['users:read'] });
      const r = await s.req('GET', '/api/branch', { token });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        id: expect.any(String),
        name: 'sales',
        slug: 'sales',
        scopes: ['users:read'],
      });
      const main = await s.req('GET', '/api/branch');
      expect(main.json).toMatchObject({ name: 'main', slug: 'main' });
      expect(main.json.id).not.toBe(r.json.id);
    });

    test('needs a valid token (401) but no particular scope', async () => {
      expect((await s.req('GET', '/api/branch', { token: null })).status).toBe(401);
      const mediaOnly = await s.token({ scopes: ['media:read'] });
      expect((await s.req('GET', '/api/branch', { token: mediaOnly })).status).toBe(200);
    });
  });
}
