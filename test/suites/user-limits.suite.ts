import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from '../helpers/database.js';
import { validating } from '../helpers/openapi-validation.js';
import { jsonBody, type StartServer, type TestServer, V2, V3 } from '../helpers/server.js';

const FLAT = 'application/json';

/** What one user may hold (CONTRACT "Users"): bounds on custom fields, no control characters. */
export function userLimitsSuite(start: StartServer) {
  let s: TestServer;
  beforeAll(async () => {
    s = validating(await start());
  });
  afterAll(() => s.close());

  const create = (body: unknown, contentType = V3) =>
    s.req('POST', '/api/users', jsonBody(body, contentType));
  const put = (key: string, body: unknown, contentType = V3) =>
    s.req('PUT', `/api/users/${key}`, jsonBody(body, contentType));
  const fields = (n: number, prefix: string, value = 'x') =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, value]));

  describe('custom profile fields', () => {
    test('a body with more than 100 custom fields is 400 naming profile', async () => {
      const r = await create({ email: 'many@example.com', profile: fields(101, 'cf') });
      expect(r.status).toBe(400);
      expect(r.json.details).toContainEqual({
        field: 'profile',
        message: expect.stringContaining('at most 100 custom fields'),
      });
    });

    test('PUTs cannot add fields past the bound one batch at a time', async () => {
      const c = await create({ email: 'grow@example.com', externalId: 'grow-1' });
      expect(c.status).toBe(201);
      expect((await put('grow-1', { profile: fields(60, 'a') })).status).toBe(200);
      const r = await put('grow-1', { profile: fields(60, 'b') });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ identifier: 40000, type: 'ValidationException' });
      expect(r.json.details[0]).toMatchObject({ field: 'profile' });
      expect(r.json.message).toContain('100');
      const after = await s.req('GET', '/api/users/grow-1', { headers: { accept: V3 } });
      // None of the refused batch's fields (b0, b1, …), whatever named fields begin with a b.
      const refused = Object.keys(fields(60, 'b'));
      expect(Object.keys(after.json.profile).filter((k) => refused.includes(k))).toEqual([]);
    });

    test('all custom fields together stay within 16 KiB', async () => {
      await create({ email: 'big@example.com', externalId: 'big-1' });
      const kb = 'v'.repeat(1000);
      expect((await put('big-1', { profile: fields(10, 'p', kb) })).status).toBe(200);
      const r = await put('big-1', { profile: fields(10, 'q', kb) });
      expect(r.status).toBe(400);
      expect(r.json.details[0].message).toContain('16 KiB');
    });

    test('a value over 1,000 characters and a key over 64 are 400 naming the field', async () => {
      const long = await create({ email: 'l@example.com', profile: { cf_long: 'x'.repeat(1001) } });
      expect(long.status).toBe(400);
      expect(long.json.details[0].field).toBe('profile.cf_long');
      const key = 'k'.repeat(65);
      const wide = await create({ email: 'w@example.com', profile: { [key]: 'x' } });
      expect(wide.status).toBe(400);
      expect(wide.json.details[0].field).toBe(`profile.${key}`);
    });

    test('a user already over the bound still reads and can be trimmed, not grown', async () => {
      const c = await create({ email: 'old@example.com', externalId: 'old-1' });
      // As written by an older server without the bound.
      const custom = JSON.stringify(fields(150, 'z', 'y'.repeat(200)));
      await sql(s.store, 'UPDATE users SET custom = ? WHERE id = ?', custom, c.json.id);
      const read = await s.req('GET', '/api/users/old-1', { headers: { accept: V3 } });
      expect(read.status).toBe(200);
      expect(read.json.profile.z149).toBe('y'.repeat(200));
      const grow = await put('old-1', { profile: { znew: 'x' } });
      expect(grow.status).toBe(400);
      const trim = await put('old-1', { profile: fields(100, 'z', null as unknown as string) });
      expect(trim.status).toBe(200);
      expect(Object.keys(trim.json.profile).filter((k) => k.startsWith('z'))).toHaveLength(50);
      const other = await put('old-1', { profile: { firstName: 'Olga' } });
      expect(other.status).toBe(200);
    });

    test('a full page of users at the bound stays far below the client cap', async () => {
      const maxed = fields(16, 'm', 'é'.repeat(480));
      const r = await create({ email: 'maxed@example.com', profile: maxed });
      expect(r.status).toBe(201);
      expect(Buffer.byteLength(JSON.stringify(r.json))).toBeLessThan(32 * 1024);
    });
  });

  describe('control characters', () => {
    const hostile = ['\u001b]0;pwned\u0007', 'a\u0000b', 'tab\there', 'del\u007f', 'c1\u009b2J'];

    test.each(hostile)('refused in names, position and custom fields: %j', async (bad) => {
      for (const body of [
        { email: 'cc@example.com', profile: { firstName: bad } },
        { email: 'cc@example.com', profile: { position: bad } },
        { email: 'cc@example.com', profile: { cf_team: bad } },
        { email: 'cc@example.com', externalId: bad },
      ]) {
        const r = await create(body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.json.details[0].message).toContain('control characters');
      }
    });

    test('refused in every shape and in form bodies, naming the field', async () => {
      const flat = await create({ email: 'f@example.com', lastName: 'x\u001by' }, FLAT);
      expect(flat.status).toBe(400);
      expect(flat.json.details[0].field).toBe('lastName');
      const v2 = await create({ email: 'g@example.com', profile: { location: 'x\ny' } }, V2);
      expect(v2.status).toBe(400);
      expect(v2.json.details[0].field).toBe('profile.location');
      const gender = await create({ email: 'h@example.com', gender: 'x\u0085' }, FLAT);
      expect(gender.status).toBe(400);

      await create({ email: 'form-cc@example.com', externalId: 'form-cc' });
      const form = await s.req('PUT', '/api/users/form-cc', {
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: V3 },
        body: 'profile.department=a%1Bb',
      });
      expect(form.status).toBe(400);
      expect(form.json.details[0].field).toBe('profile.department');
      const row = await s.req('GET', '/api/users/form-cc', { headers: { accept: V3 } });
      expect(row.json.profile.department).toBeNull();
    });

    test('ordinary Unicode text is kept as given', async () => {
      const r = await create({
        email: 'uni@example.com',
        profile: { firstName: 'Zoë', lastName: 'Ólafsdóttir 李', position: 'Straße → Ärztin' },
      });
      expect(r.status).toBe(201);
      expect(r.json.profile.lastName).toBe('Ólafsdóttir 李');
    });
  });
}
