import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  jsonBody,
  type StartServer,
  type TestServer,
  USERS_V2,
  V2,
  V3,
} from '../helpers/server.js';

const INVITE = 'application/vnd.service.accessors.user-invite.v2+json';
const UPDATE = 'application/vnd.service.accessors.user-update.v1+json';
const SB = (entity: string, version: string) =>
  `application/vnd.staffbase.accessors.${entity}.${version}+json`;

/**
 * The real platform's request types (user-invite.v2, user-update.v1), on Roster's own server
 * and on `serve --like-platform`, which offers nothing else, against any server.
 */
export function platformTypesSuite(start: StartServer) {
  describe("the platform's request types", () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await start();
    });
    afterAll(async () => {
      await s.close();
    });

    test('POST /users as user-invite.v2: the current shape with role and config.locale', async () => {
      const r = await s.req(
        'POST',
        '/api/users',
        jsonBody(
          {
            email: { value: 'inv@example.com' },
            role: 'editor',
            config: { locale: 'de_DE' },
            profile: { firstName: 'In' },
            sendMail: false,
          },
          INVITE,
        ),
      );
      expect(r.status, r.text).toBe(201);
      expect(r.headers['content-type']).toContain(V3);
      expect(r.json).toMatchObject({ role: 'editor', config: { locale: 'de_DE' } });
      const stored = await s.req('GET', `/api/users/${r.json.id}`, { headers: { accept: V3 } });
      expect(stored.json.profile.firstName).toBe('In');
    });

    test('user-invite.v2 without role or locale, or with bad or hostile values: 400 naming each', async () => {
      const missing = await s.req(
        'POST',
        '/api/users',
        jsonBody({ email: 'no-role@example.com' }, INVITE),
      );
      expect(missing.status).toBe(400);
      expect(missing.json).toMatchObject({ identifier: 40000, type: 'ValidationException' });
      expect(missing.json.details).toEqual([
        { field: 'role', message: 'is required by this media type' },
        { field: 'config.locale', message: 'is required by this media type' },
      ]);
      const nulls = await s.req(
        'POST',
        '/api/users',
        jsonBody({ email: 'n@example.com', role: null, config: { locale: null } }, INVITE),
      );
      expect(nulls.status).toBe(400);
      expect(nulls.json.details.map((d: { field: string }) => d.field)).toEqual([
        'role',
        'config.locale',
      ]);
      for (const [body, field] of [
        [{ email: 'x@example.com', role: 'boss', config: { locale: 'de_DE' } }, 'role'],
        [{ email: 'x@example.com', role: 'reader', config: { locale: 'german' } }, 'config.locale'],
        [{ email: 'x@example.com', role: 'reader\u0000', config: { locale: 'de_DE' } }, 'role'],
        [{ email: 'x@example.com', role: 'reader', config: { locale: 'de_DE', x: 1 } }, 'config.x'],
      ] as const) {
        const r = await s.req('POST', '/api/users', jsonBody(body, INVITE));
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.json.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      const broken = await s.req('POST', '/api/users', {
        headers: { 'content-type': INVITE, accept: V3 },
        body: '{"email": ',
      });
      expect(broken.status).toBe(400);
      expect(broken.json.identifier).toBe(40000);
      // Nothing of these was stored.
      const list = await s.req('GET', '/api/users?status=activated,pending', {
        headers: { accept: USERS_V2 },
      });
      expect(list.json.data.map((u: any) => u.email?.value)).toEqual(['inv@example.com']);
    });

    test('PUT /users/{id} as user-update.v1: incremental, in the current shape', async () => {
      const created = await s.req(
        'POST',
        '/api/users',
        jsonBody({ email: 'upd@example.com', externalId: 'upd-1', sendMail: false }),
      );
      expect(created.status).toBe(201);
      const r = await s.req(
        'PUT',
        '/api/users/upd-1',
        jsonBody({ profile: { position: 'CTO' }, config: { locale: 'fr_FR' } }, UPDATE),
      );
      expect(r.status, r.text).toBe(200);
      expect(r.json).toMatchObject({ profile: { position: 'CTO' }, config: { locale: 'fr_FR' } });
      const bad = await s.req('PUT', '/api/users/upd-1', jsonBody({ id: 'x' }, UPDATE));
      expect(bad.status).toBe(400);
      expect(bad.json.details).toEqual([{ field: 'id', message: 'is read-only' }]);
    });

    test('GET /api lists both, user-invite.v2 with the fields it requires', async () => {
      const api = await s.req('GET', '/api', { token: null });
      expect(api.json.versions).toContainEqual({
        endpoint: '/users',
        method: 'POST',
        header: 'Content-Type',
        mediaType: INVITE,
        version: 'v2',
        stage: 'production',
        requires: ['role', 'config.locale'],
      });
      expect(api.json.versions).toContainEqual({
        endpoint: '/users/{userId}',
        method: 'PUT',
        header: 'Content-Type',
        mediaType: UPDATE,
        version: 'v1',
        stage: 'production',
      });
    });
  });

  describe('serve --like-platform', () => {
    let p: TestServer;
    beforeAll(async () => {
      p = await start({ likePlatform: true, vendor: 'staffbase' });
    });
    afterAll(async () => {
      await p.close();
    });

    test('has no GET /api nor its OpenAPI document', async () => {
      for (const path of ['/api', '/api/openapi.json']) {
        const r = await p.req('GET', path, { token: null });
        expect(r.status, path).toBe(404);
      }
    });

    test('creates users only as user-invite.v2, and 415 does not list what it takes', async () => {
      const v3 = await p.req('POST', '/api/users', {
        headers: { 'content-type': SB('user', 'v3'), accept: SB('user', 'v3') },
        body: JSON.stringify({ email: 'p@example.com' }),
      });
      expect(v3.status).toBe(415);
      expect(v3.json.identifier).toBe(41500);
      expect(v3.json.message).not.toContain('user-invite');
      const invite = await p.req('POST', '/api/users', {
        headers: { 'content-type': SB('user-invite', 'v2'), accept: SB('user', 'v3') },
        body: JSON.stringify({
          email: 'p@example.com',
          role: 'reader',
          config: { locale: 'en_US' },
        }),
      });
      expect(invite.status, invite.text).toBe(201);
      expect(invite.headers['content-type']).toContain(SB('user', 'v3'));
    });

    test('changes users as user-update.v1 or plain JSON, not as user.v3', async () => {
      const created = await p.req('POST', '/api/users', {
        headers: { 'content-type': SB('user-invite', 'v2'), accept: SB('user', 'v3') },
        body: JSON.stringify({
          email: 'q@example.com',
          externalId: 'q-1',
          role: 'reader',
          config: { locale: 'en_US' },
        }),
      });
      expect(created.status).toBe(201);
      const put = (type: string, body: unknown) =>
        p.req('PUT', '/api/users/q-1', {
          headers: { 'content-type': type, accept: SB('user', 'v3') },
          body: JSON.stringify(body),
        });
      expect((await put(SB('user-update', 'v1'), { profile: { position: 'A' } })).status).toBe(200);
      expect((await put('application/json', { position: 'B' })).json.profile.position).toBe('B');
      expect((await put(SB('user', 'v3'), { profile: { position: 'C' } })).status).toBe(415);
    });

    test('no deprecated user.v2, and a 406 that lists nothing but repeats what was asked for', async () => {
      const r = await p.req('GET', '/api/users/q-1', { headers: { accept: SB('user', 'v2') } });
      expect(r.status).toBe(406);
      expect(r.json.identifier).toBe(40600);
      // As the platform's own 406 does: the vendor word in it is the client's, not an offer.
      expect(r.json.message).toContain(`(asked for: ${SB('user', 'v2')})`);
      expect(r.json.message.replace(SB('user', 'v2'), '')).not.toContain('application/');
      const service = await p.req('GET', '/api/users', { headers: { accept: USERS_V2 } });
      expect(service.status).toBe(406);
      expect((await p.req('GET', '/api/users', { headers: { accept: V2 } })).status).toBe(406);
    });

    test('sorts by name keys only, as the platform documents', async () => {
      const accept = { accept: SB('users', 'v2') };
      const ok = await p.req('GET', '/api/users?sort=firstName_DESC_lastName_ASC', {
        headers: accept,
      });
      expect(ok.status).toBe(200);
      const bad = await p.req('GET', '/api/users?sort=externalId_ASC_email_ASC', {
        headers: accept,
      });
      expect(bad.status).toBe(400);
      expect(bad.json.details).toEqual([
        { field: 'sort', message: "'externalId' is not one of firstName, lastName" },
      ]);
    });

    test('pages by offset only: no next, no Link, and after is an unknown parameter', async () => {
      const accept = { accept: SB('users', 'v2') };
      for (const i of [1, 2]) {
        const r = await p.req('POST', '/api/users', {
          headers: { 'content-type': SB('user-invite', 'v2'), accept: SB('user', 'v3') },
          body: JSON.stringify({
            email: `paged${i}@example.com`,
            secret: 'password-123',
            role: 'reader',
            config: { locale: 'de_DE' },
          }),
        });
        expect(r.status).toBe(201);
      }
      const page = await p.req('GET', '/api/users?limit=1', { headers: accept });
      expect(page.json.data).toHaveLength(1);
      expect(page.json.total).toBeGreaterThan(1);
      expect(page.json).not.toHaveProperty('next');
      expect(page.headers.link).toBeUndefined();
      const after = await p.req('GET', '/api/users?limit=1&after=abc.def', { headers: accept });
      expect(after.status).toBe(400);
      expect(after.json.details).toEqual([{ field: 'after', message: 'is not a known field' }]);
    });
  });
}
