import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { validating } from '../helpers/openapi-validation.js';
import { jsonBody, type StartServer, type TestServer, V2, V3 } from '../helpers/server.js';
import { UNSET_PROFILE } from '../helpers/user-fields.js';

/** The users routes behaviour, run against any server (in-process or `roster serve`). */
/** `secretHashCost`: the scrypt cost the server is expected to store one-time passwords at. */
export function usersRoutesSuite(
  start: StartServer,
  { secretHashCost }: { secretHashCost: number },
) {
  let s: TestServer;
  beforeAll(async () => {
    s = validating(await start());
  });
  afterAll(() => s.close());

  const create = (body: unknown, contentType = V3) =>
    s.req('POST', '/api/users', jsonBody(body, contentType));

  describe('POST /api/users', () => {
    test('creates a pending user, answers 201 with Location and the v3 user', async () => {
      const r = await create({
        email: 'ann@example.com',
        externalId: 'emp-1',
        role: 'editor',
        config: { locale: 'de_DE' },
        profile: { firstName: 'Ann', lastName: 'Lee', department: 'Ops', cf_team: 'blue' },
      });
      expect(r.status).toBe(201);
      expect(r.headers.location).toBe(`${s.url}/api/users/${r.json.id}`);
      expect(r.headers['content-type']).toContain(V3);
      expect(r.json).toMatchObject({
        status: 'pending',
        role: 'editor',
        externalId: 'emp-1',
        activatedAt: null,
        email: { value: 'ann@example.com', source: 'system' },
        userName: null,
        config: { locale: 'de_DE' },
        profile: { firstName: 'Ann', lastName: 'Lee', department: 'Ops', cf_team: 'blue' },
      });
      expect(r.json.id).toMatch(/^[0-9a-f]{24}$/);
      expect(r.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    test('with a secret the user is activated and the secret is never returned or stored plain', async () => {
      const r = await create({ userName: 'bob', secret: 'one-time-pass' });
      expect(r.status).toBe(201);
      expect(r.json.status).toBe('activated');
      expect(r.json.activatedAt).toBe(r.json.createdAt);
      expect(r.text).not.toContain('one-time-pass');
      const [row] = await sql<{ secret_hash: string }>(
        s.store,
        'SELECT secret_hash FROM users WHERE id = ?',
        r.json.id,
      );
      expect(row!.secret_hash).toMatch(new RegExp(`^scrypt\\$${secretHashCost}\\$8\\$1\\$`));
      expect(row!.secret_hash).not.toContain('one-time-pass');
    });

    test('an email invitation goes to the outbox unless sendMail is false', async () => {
      const outbox = join(s.dataDir, 'outbox');
      const mails = () =>
        existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : [];
      const settled = async () => (await s.store.outbox.pending()) === 0;
      await eventually(settled);
      const before = mails().length;
      await create({ email: 'mail2@example.com', sendMail: false });
      await create({ email: 'mail1@example.com', profile: { firstName: 'Mia' } });
      await eventually(async () => (await settled()) && mails().length === before + 1);
      const files = mails();
      const newest = files.sort().at(-1)!;
      const mail = readFileSync(join(s.dataDir, 'outbox', newest), 'utf8');
      expect(mail).toContain('To: mail1@example.com');
      expect(mail).toContain('Hello Mia,');
    });

    test('accepts the flat and v2 request shapes and answers in the Accept version', async () => {
      const flat = await s.req('POST', '/api/users', {
        headers: { 'content-type': 'application/json', accept: V2 },
        body: JSON.stringify({
          email: 'flat@example.com',
          firstName: 'Flo',
          lastName: 'At',
          role: { type: 'reader' },
        }),
      });
      expect(flat.status).toBe(201);
      expect(flat.headers.deprecation).toBe('true');
      expect(flat.json).toMatchObject({
        email: 'flat@example.com',
        role: 'reader',
        profile: { firstName: 'Flo', lastName: 'At' },
      });
      const v2 = await s.req('POST', '/api/users', {
        headers: { 'content-type': V2 },
        body: JSON.stringify({ email: 'v2@example.com', profile: { firstName: 'Vee' } }),
      });
      expect(v2.status).toBe(201);
      // No Accept: the oldest version, the flat user.
      expect(v2.json).toMatchObject({
        firstName: 'Vee',
        externalID: null,
        role: null,
        status: 'pending',
      });
      expect(v2.json.created).toBeDefined();
    });

    test('rejects bodies without email or userName, unknown and read-only keys, bad values', async () => {
      const cases: [unknown, string][] = [
        [{ profile: { firstName: 'X' } }, 'email'],
        [{ email: 'x@example.com', id: 'abc' }, 'id'],
        [{ email: 'x@example.com', status: 'activated' }, 'status'],
        [{ email: 'x@example.com', nickname: 'x' }, 'nickname'],
        [{ email: 'not-an-email' }, 'email'],
        [{ email: 'x@example.com', role: 'god' }, 'role'],
        [{ email: 'x@example.com', config: { locale: 'german' } }, 'config.locale'],
        [{ email: 'x@example.com', profile: { firstname: 'typo' } }, 'profile.firstname'],
        [{ email: 'x@example.com', profile: { 'bad key!': 'v' } }, 'profile.bad key!'],
        [{ email: 'x@example.com', profile: { firstName: 42 } }, 'profile.firstName'],
        [{ email: 'x@example.com', secret: 'short' }, 'secret'],
        [{ email: 'x@example.com', sendMail: 'yes' }, 'sendMail'],
        [
          {
            email: 'x@example.com',
            profile: { avatar: { original: { url: 'file:///etc/passwd' } } },
          },
          'profile.avatar.original.url',
        ],
        [[{ email: 'x@example.com' }], '(body)'],
      ];
      for (const [body, field] of cases) {
        const r = await create(body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.json).toMatchObject({
          identifier: 40000,
          statusCode: 400,
          type: 'ValidationException',
        });
        expect(
          r.json.details.map((d: { field: string }) => d.field),
          JSON.stringify(body),
        ).toContain(field);
      }
      const [count] = await sql<{ n: number }>(
        s.store,
        "SELECT count(*) AS n FROM users WHERE email = 'x@example.com'",
      );
      expect(Number(count!.n)).toBe(0);
    });

    test('malformed JSON, empty bodies and oversized bodies get 400/413 envelopes', async () => {
      const bad = await s.req('POST', '/api/users', {
        headers: { 'content-type': V3 },
        body: '{"email":',
      });
      expect(bad.status).toBe(400);
      expect(bad.json.message).toMatch(/not valid JSON/);
      const empty = await s.req('POST', '/api/users', {
        headers: { 'content-type': V3 },
        body: '',
      });
      expect(empty.status).toBe(400);
      const big = JSON.stringify({
        email: 'big@example.com',
        profile: { cf_big: 'x'.repeat(1024 * 1024) },
      });
      const tooLarge = await s.req('POST', '/api/users', {
        headers: { 'content-type': V3 },
        body: big,
      });
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.json).toMatchObject({ identifier: 41300, type: 'PayloadTooLargeException' });
    });

    test('duplicate externalId, email (any case) or userName → 409 naming the field', async () => {
      await create({ email: 'dup@example.com', externalId: 'dup-1', userName: 'dupe' });
      for (const [body, field] of [
        [{ email: 'other@example.com', externalId: 'dup-1' }, 'externalId'],
        [{ email: 'DUP@example.com' }, 'email'],
        [{ userName: 'DUPE' }, 'userName'],
      ] as const) {
        const r = await create(body);
        expect(r.status).toBe(409);
        expect(r.json).toMatchObject({ identifier: 40900, type: 'ConflictException' });
        expect(r.json.details[0].field).toBe(field);
      }
    });

    test('keys are compared in Unicode NFC (contract/identity): one person however encoded', async () => {
      const composed = 'Jos\u00e9';
      const decomposed = 'Jose\u0301';
      const made = await create({
        email: 'nfc@example.com',
        externalId: composed,
        userName: composed,
      });
      expect(made.status).toBe(201);
      for (const [body, field] of [
        [{ email: 'nfc2@example.com', externalId: decomposed }, 'externalId'],
        [{ userName: decomposed.toUpperCase() }, 'userName'],
      ] as const) {
        const r = await create(body);
        expect(r.status).toBe(409);
        expect(r.json.details[0].field).toBe(field);
      }
      // externalId is case-exact: another case is another person.
      expect(
        (await create({ email: 'nfc3@example.com', externalId: 'josé'.toUpperCase() })).status,
      ).toBe(201);
      const got = await s.req('GET', `/api/users/${encodeURIComponent(decomposed)}`, {
        headers: { accept: V3 },
      });
      expect([got.status, got.json.id]).toEqual([200, made.json.id]);
    });

    test('SQL metacharacters are stored as plain text', async () => {
      const r = await create({
        email: 'sql@example.com',
        profile: { lastName: "O'Brien; DROP TABLE users;--" },
      });
      expect(r.status).toBe(201);
      const got = await s.req('GET', `/api/users/${r.json.id}`, { headers: { accept: V3 } });
      expect(got.json.profile.lastName).toBe("O'Brien; DROP TABLE users;--");
    });
  });

  describe('GET /api/users/{userId}', () => {
    test('finds by id and by externalId, in every version', async () => {
      const { json: created } = await create({
        email: 'get@example.com',
        externalId: 'get-1',
        userName: 'getter',
        role: 'admin',
        profile: { firstName: 'Gus' },
      });
      const byId = await s.req('GET', `/api/users/${created.id}`, { headers: { accept: V3 } });
      expect(byId.json).toEqual(created);
      const byExternal = await s.req('GET', '/api/users/get-1', { headers: { accept: V3 } });
      expect(byExternal.json.id).toBe(created.id);

      const v2 = await s.req('GET', '/api/users/get-1', { headers: { accept: V2 } });
      expect(v2.headers['content-type']).toContain(V2);
      expect(v2.headers.deprecation).toBe('true');
      expect(v2.json).toMatchObject({
        email: 'get@example.com',
        userName: 'getter',
        profile: { firstName: 'Gus' },
      });

      const flat = await s.req('GET', '/api/users/get-1');
      expect(flat.headers['content-type']).toContain('application/json');
      expect(flat.headers.deprecation).toBeUndefined();
      expect(flat.json).toEqual({
        id: created.id,
        externalID: 'get-1',
        ...UNSET_PROFILE,
        firstName: 'Gus',
        gender: null,
        status: 'pending',
        role: { type: 'admin' },
        created: created.createdAt,
        updated: created.createdAt,
      });
    });

    test('unknown ids answer 404 naming the user', async () => {
      const r = await s.req('GET', '/api/users/nobody-here');
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ identifier: 40408, type: 'NotFoundException' });
      expect(r.json.message).toContain('nobody-here');
    });
  });

  describe('PUT /api/users/{userId}', () => {
    test('changes only the given keys; null clears', async () => {
      const { json: u } = await create({
        email: 'put@example.com',
        externalId: 'put-1',
        profile: { firstName: 'Pia', lastName: 'Ut', cf_x: '1' },
      });
      const r = await s.req(
        'PUT',
        '/api/users/put-1',
        jsonBody({ profile: { lastName: null, position: 'CTO', cf_x: null, cf_y: '2' } }),
      );
      expect(r.status).toBe(200);
      expect(r.json.profile).toMatchObject({
        firstName: 'Pia',
        lastName: null,
        position: 'CTO',
        cf_y: '2',
      });
      expect(r.json.profile).not.toHaveProperty('cf_x');
      expect(r.json.email).toEqual({ value: 'put@example.com', source: 'system' });
      expect(r.json.id).toBe(u.id);
    });

    test('accepts urlencoded and multipart bodies with dotted keys', async () => {
      await create({ email: 'form@example.com', externalId: 'form-1' });
      const urlencoded = await s.req('PUT', '/api/users/form-1', {
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: V3 },
        body: 'profile.firstName=Fay&config.locale=fr_FR&role=reader&profile.department=',
      });
      expect(urlencoded.status).toBe(200);
      expect(urlencoded.json).toMatchObject({
        role: 'reader',
        config: { locale: 'fr_FR' },
        profile: { firstName: 'Fay', department: null },
      });

      const form = new FormData();
      form.append('profile.location', 'Berlin');
      form.append('recoveryCode.plain', 'rescue-me');
      form.append('recoveryCode.expires', '1893456000000');
      const req = new Request('http://x', { method: 'PUT', body: form });
      const multipart = await s.req('PUT', '/api/users/form-1', {
        headers: { 'content-type': req.headers.get('content-type')!, accept: V3 },
        body: Buffer.from(await req.arrayBuffer()),
      });
      expect(multipart.status).toBe(200);
      expect(multipart.json.profile.location).toBe('Berlin');
      const [row] = await sql<{ recovery_hash: string; recovery_expires: number }>(
        s.store,
        "SELECT recovery_hash, recovery_expires FROM users WHERE external_id = 'form-1'",
      );
      expect(row!.recovery_hash).toMatch(new RegExp(`^scrypt\\$${secretHashCost}\\$`));
      expect(Number(row!.recovery_expires)).toBe(1893456000000);

      const withFile = new FormData();
      withFile.append('profile.location', 'Paris');
      withFile.append('file', new Blob(['hello']), 'x.txt');
      const req2 = new Request('http://x', { method: 'PUT', body: withFile });
      const rejected = await s.req('PUT', '/api/users/form-1', {
        headers: { 'content-type': req2.headers.get('content-type')! },
        body: Buffer.from(await req2.arrayBuffer()),
      });
      expect(rejected.status).toBe(400);
      const after = await s.req('GET', '/api/users/form-1', { headers: { accept: V3 } });
      expect(after.json.profile.location).toBe('Berlin');
    });

    test('form field names shared with Object.prototype are plain custom fields', async () => {
      await create({ email: 'own@example.com', externalId: 'own-1' });
      const r = await s.req('PUT', '/api/users/own-1', {
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: V3 },
        body: 'profile.toString=2&profile.valueOf=3',
      });
      expect(r.status).toBe(200);
      expect(r.json.profile).toMatchObject({ toString: '2', valueOf: '3' });
    });

    test('hostile form keys are rejected', async () => {
      await create({ email: 'proto@example.com', externalId: 'proto-1' });
      for (const body of [
        '__proto__.x=1',
        'profile..x=1',
        'profile=1&profile.firstName=a',
        'role=a&role=b',
      ]) {
        const r = await s.req('PUT', '/api/users/proto-1', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        expect(r.status, body).toBe(400);
      }
    });

    test('deactivate and re-activate; activatedAt holds the latest activation', async () => {
      const { json: u } = await create({ email: 'cycle@example.com', secret: 'first-pass-1' });
      const off = await s.req('PUT', `/api/users/${u.id}`, jsonBody({ status: 'deactivated' }));
      expect(off.json.status).toBe('deactivated');
      // Timestamps are to the millisecond: let one begin after the first activation's.
      await eventually(() => new Date().toISOString() > u.activatedAt);
      const on = await s.req('PUT', `/api/users/${u.id}`, jsonBody({ status: 'activated' }));
      expect(on.json.status).toBe('activated');
      expect(on.json.activatedAt > u.activatedAt).toBe(true);
      const bad = await s.req('PUT', `/api/users/${u.id}`, jsonBody({ status: 'deleted' }));
      expect(bad.status).toBe(400);
    });

    test('a pending user cannot be activated without a secret, and is by one', async () => {
      const { json: u } = await create({ email: 'pend@example.com' });
      const refused = await s.req('PUT', `/api/users/${u.id}`, jsonBody({ status: 'activated' }));
      expect(refused.status).toBe(409);
      const withSecret = await s.req(
        'PUT',
        `/api/users/${u.id}`,
        jsonBody({ secret: 'welcome-123' }),
      );
      expect(withSecret.json.status).toBe('activated');
    });

    test('validation errors change nothing; 404 for unknown users; empty bodies are 400', async () => {
      await create({
        email: 'keep@example.com',
        externalId: 'keep-1',
        profile: { firstName: 'Kim' },
      });
      const r = await s.req(
        'PUT',
        '/api/users/keep-1',
        jsonBody({ profile: { firstName: 'Changed' }, role: 'nope' }),
      );
      expect(r.status).toBe(400);
      const after = await s.req('GET', '/api/users/keep-1', { headers: { accept: V3 } });
      expect(after.json.profile.firstName).toBe('Kim');
      expect((await s.req('PUT', '/api/users/missing', jsonBody({ role: 'reader' }))).status).toBe(
        404,
      );
      expect((await s.req('PUT', '/api/users/keep-1', jsonBody({}))).status).toBe(400);
      expect((await s.req('PUT', '/api/users/keep-1', jsonBody({ sendMail: true }))).status).toBe(
        400,
      );
    });

    test('a conflicting change is 409 and leaves the user as it was', async () => {
      await create({ email: 'a1@example.com', externalId: 'c-a' });
      await create({ email: 'b1@example.com', externalId: 'c-b' });
      const r = await s.req(
        'PUT',
        '/api/users/c-b',
        jsonBody({ externalId: 'c-a', profile: { firstName: 'B' } }),
      );
      expect(r.status).toBe(409);
      const b = await s.req('GET', '/api/users/c-b', { headers: { accept: V3 } });
      expect(b.json.profile.firstName).toBeNull();
    });
  });

  describe('DELETE /api/users/{userId}', () => {
    test('202, then 404 and gone from lists; the externalId can be reused', async () => {
      const { json: u } = await create({
        email: 'del@example.com',
        externalId: 'del-1',
        secret: 'password-1',
      });
      const r = await s.req('DELETE', '/api/users/del-1');
      expect(r.status).toBe(202);
      expect(r.text).toBe('');
      // No body, so no body type (OpenAPI tools would otherwise expect JSON).
      expect(r.headers['content-type']).toBeUndefined();
      expect((await s.req('GET', `/api/users/${u.id}`)).status).toBe(404);
      expect((await s.req('DELETE', `/api/users/${u.id}`)).status).toBe(404);
      const list = await s.req(
        'GET',
        '/api/users?status=activated,pending,deactivated&limit=1000',
        {
          headers: { accept: 'application/vnd.service.accessors.users.v2+json' },
        },
      );
      expect(list.json.data.map((x: { id: string }) => x.id)).not.toContain(u.id);
      const again = await create({ email: 'del@example.com', externalId: 'del-1' });
      expect(again.status).toBe(201);
      expect(again.json.id).not.toBe(u.id);
    });
  });

  describe('OPTIONS and unknown methods', () => {
    test('OPTIONS answers 204 with Allow', async () => {
      const list = await s.req('OPTIONS', '/api/users');
      expect(list.status).toBe(204);
      expect(list.headers.allow).toBe('OPTIONS, POST, GET');
      const one = await s.req('OPTIONS', '/api/users/anything');
      expect(one.status).toBe(204);
      expect(one.headers.allow).toBe('OPTIONS, PUT, GET, DELETE');
    });

    test('405 with Allow and the envelope', async () => {
      const r = await s.req('PATCH', '/api/users/x', jsonBody({}));
      expect(r.status).toBe(405);
      expect(r.headers.allow).toContain('PUT');
      expect(r.json).toMatchObject({ identifier: 40500, type: 'MethodNotAllowedException' });
      expect((await s.req('DELETE', '/api/users')).status).toBe(405);
    });
  });
}
