import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { validating } from '../helpers/openapi-validation.js';
import { jsonBody, type StartServer, type TestServer, USERS_V2 } from '../helpers/server.js';

/** The users list behaviour, run against any server (in-process or `roster serve`). */
export function usersListSuite(start: StartServer) {
  let s: TestServer;
  const people = [
    ['Zoe', 'Adams', 'activated', 'Berlin'],
    ['Adam', 'Brown', 'activated', 'Hamburg'],
    ['Ben', 'Brown', 'pending', 'Berlin'],
    ['Cleo', 'Clark', 'deactivated', 'Munich'],
    ['Jürgen', 'Müller', 'activated', 'Köln'],
    ['Ann', 'Zimmer', 'activated', 'Berlin'],
  ] as const;

  beforeAll(async () => {
    s = validating(await start());
    for (const [i, [firstName, lastName, status, location]] of people.entries()) {
      const body = {
        email: `${lastName.toLowerCase().replace('ü', 'ue')}.${i}@example.com`,
        externalId: `p-${i}`,
        ...(status !== 'pending' && { secret: 'password-123' }),
        profile: { firstName, lastName, location, phoneNumber: `+49 30 ${1000 + i}` },
      };
      const r = await s.req('POST', '/api/users', jsonBody(body));
      expect(r.status).toBe(201);
      if (status === 'deactivated') {
        await s.req('PUT', `/api/users/p-${i}`, jsonBody({ status: 'deactivated' }));
      }
    }
  });
  afterAll(() => s.close());

  const list = async (qs: string) => {
    const r = await s.req('GET', `/api/users${qs}`, { headers: { accept: USERS_V2 } });
    return r;
  };
  const names = (r: { json: { data: { profile: { firstName: string } }[] } }) =>
    r.json.data.map((u) => u.profile.firstName);

  describe('GET /api/users', () => {
    test('defaults: activated only, sorted by last then first name, limit 100 offset 0', async () => {
      const r = await list('');
      expect(r.json).toMatchObject({ total: 4, limit: 100, offset: 0 });
      expect(names(r)).toEqual(['Zoe', 'Adam', 'Jürgen', 'Ann']);
    });

    test('no Accept: flat users in the envelope', async () => {
      const r = await s.req('GET', '/api/users?limit=1');
      expect(r.headers['content-type']).toContain('application/json');
      expect(r.json.data[0]).toMatchObject({
        firstName: 'Zoe',
        lastName: 'Adams',
        externalID: 'p-0',
      });
    });

    test('status filter takes one or more statuses', async () => {
      expect(names(await list('?status=pending'))).toEqual(['Ben']);
      expect(names(await list('?status=deactivated,pending'))).toEqual(['Ben', 'Cleo']);
      expect((await list('?status=activated,pending,deactivated')).json.total).toBe(6);
    });

    test('pagination: limit, offset and total; limit above 1000 is applied as 1000', async () => {
      const page = await list('?limit=2&offset=1');
      expect(page.json).toMatchObject({ total: 4, limit: 2, offset: 1 });
      expect(names(page)).toEqual(['Adam', 'Jürgen']);
      expect((await list('?offset=10')).json.data).toEqual([]);
      expect((await list('?limit=5000')).json.limit).toBe(1000);
    });

    test('sort by two keys in either direction', async () => {
      expect(names(await list('?sort=firstName_DESC_lastName_ASC'))).toEqual([
        'Zoe',
        'Jürgen',
        'Ann',
        'Adam',
      ]);
      const byCreated = await list(
        '?sort=createdAt_DESC_lastName_ASC&status=activated,pending,deactivated',
      );
      expect(names(byCreated)[0]).toBe('Ann');
    });

    test('query: prefix search over names, email, location, phone; diacritics folded', async () => {
      expect(names(await list('?query=ber'))).toEqual(['Zoe', 'Ann']);
      expect(names(await list('?query=muller'))).toEqual(['Jürgen']);
      expect(names(await list('?query=Br%20Ad'))).toEqual(['Adam']);
      expect(names(await list('?query=zimmer.5%40example'))).toEqual(['Ann']);
      expect(names(await list('?query=1004'))).toEqual(['Jürgen']);
      expect((await list('?query=nobody')).json).toMatchObject({ total: 0, data: [] });
    });

    test('FTS and SQL metacharacters in query are plain text', async () => {
      for (const q of [
        '"',
        '*',
        'AND',
        'NEAR(a b)',
        "'; DROP TABLE users; --",
        'a OR b',
        '^x',
        '(',
        '%',
        '-ber',
      ]) {
        const r = await list(`?query=${encodeURIComponent(q)}`);
        expect(r.status, q).toBe(200);
      }
      expect((await list('?query=%2A%2A%2A')).json.total).toBe(0);
      expect((await list('?status=activated,pending,deactivated')).json.total).toBe(6);
    });

    test('bad parameters are 400 with details naming the parameter', async () => {
      const cases: [string, string][] = [
        ['?limit=0', 'limit'],
        ['?limit=-1', 'limit'],
        ['?limit=abc', 'limit'],
        ['?limit=1.5', 'limit'],
        ['?offset=-3', 'offset'],
        ['?sort=lastName', 'sort'],
        ['?sort=password_ASC_lastName_ASC', 'sort'],
        ['?sort=lastName_UP_firstName_ASC', 'sort'],
        ['?status=deleted', 'status'],
        ['?status=', 'status'],
        ['?status=activated,bogus', 'status'],
        ['?limit=1&limit=2', 'limit'],
        ['?colour=red', 'colour'],
        [`?query=${'x'.repeat(201)}`, 'query'],
      ];
      for (const [qs, field] of cases) {
        const r = await list(qs);
        expect(r.status, qs).toBe(400);
        expect(r.json.identifier).toBe(40000);
        expect(
          r.json.details.map((d: { field: string }) => d.field),
          qs,
        ).toContain(field);
      }
    });
  });
}
