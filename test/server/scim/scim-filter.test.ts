/**
 * What real clients filter and page by, over real HTTP: every operator, and/or/not and
 * parentheses on the attributes the issue lists; startIndex/count; unsupported → invalidFilter.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ERROR, PATCH_OP, scimClient, scimUser } from '../../helpers/scim.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let scim: ReturnType<typeof scimClient>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  server = await startServer();
  scim = scimClient(server);
  const people = [
    scimUser('anna', { name: { givenName: 'Anna', familyName: 'Berg' }, title: 'Engineer' }),
    scimUser('ben', { name: { givenName: 'Ben', familyName: 'Berger' } }),
    scimUser('carla', {
      name: { givenName: 'Carla', familyName: 'Diaz' },
      emails: [
        { value: 'carla@work.example', type: 'work', primary: true },
        { value: 'carla@public.example', type: 'public' },
      ],
    }),
    scimUser('dora', { name: { givenName: 'Dora', familyName: 'Ek' } }),
    scimUser('emil', { name: { givenName: 'Emil', familyName: 'Fox' } }),
  ];
  for (const p of people) {
    const res = await scim('POST', '/Users', p);
    expect(res.status).toBe(201);
    ids[p.externalId] = res.json.id;
  }
  // Dora is deactivated: still listed, with active false.
  await scim('PATCH', `/Users/${ids['ext-dora']}`, {
    schemas: [PATCH_OP],
    Operations: [{ op: 'replace', path: 'active', value: false }],
  });
});
afterAll(() => server.close());

async function found(filter: string): Promise<string[]> {
  const res = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
  expect(res.status, res.text).toBe(200);
  expect(res.json.totalResults).toBe(res.json.Resources.length);
  return res.json.Resources.map((r: any) => r.externalId).sort();
}

describe('filters', () => {
  test.each([
    ['userName eq "useranna@example.com"', ['ext-anna']],
    ['userName eq "USERANNA@EXAMPLE.COM"', ['ext-anna']],
    ['externalId eq "ext-ben"', ['ext-ben']],
    ['externalId eq "EXT-BEN"', []],
    [`id eq "${'0'.repeat(24)}"`, []],
    ['emails.value eq "carla@public.example"', ['ext-carla']],
    ['emails[type eq "work"].value eq "carla@work.example"', ['ext-carla']],
    ['emails[type eq "work"].value eq "carla@public.example"', []],
    ['emails[type eq "work" and value co "@work."]', ['ext-carla']],
    ['name.familyName sw "Berg"', ['ext-anna', 'ext-ben']],
    ['name.familyName ew "ger"', ['ext-ben']],
    ['name.givenName co "mi"', ['ext-emil']],
    ['name.givenName ne "Anna"', ['ext-ben', 'ext-carla', 'ext-dora', 'ext-emil']],
    ['title pr', ['ext-anna']],
    ['not (title pr)', ['ext-ben', 'ext-carla', 'ext-dora', 'ext-emil']],
    ['name.familyName gt "D"', ['ext-carla', 'ext-dora', 'ext-emil']],
    ['name.familyName ge "Ek"', ['ext-dora', 'ext-emil']],
    ['name.familyName lt "Berger"', ['ext-anna']],
    ['name.familyName le "Berger"', ['ext-anna', 'ext-ben']],
    ['active eq false', ['ext-dora']],
    ['active eq true and name.familyName sw "B"', ['ext-anna', 'ext-ben']],
    [
      '(name.givenName eq "Anna" or name.givenName eq "Emil") and not (userName co "emil")',
      ['ext-anna'],
    ],
    ['userName eq "useranna@example.com" or externalId eq "ext-emil"', ['ext-anna', 'ext-emil']],
  ])('%s', async (filter, expected) => {
    expect(await found(filter)).toEqual(expected);
  });

  test('delta sync: meta.lastModified gt the time of a change finds what changed after it', async () => {
    const all = await scim('GET', '/Users');
    const latest = all.json.Resources.map((r: any) => r.meta.lastModified)
      .sort()
      .at(-1);
    expect(await found(`meta.lastModified gt "${latest}"`)).toEqual([]);
    await scim('PATCH', `/Users/${ids['ext-ben']}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'title', value: 'Lead' }],
    });
    expect(await found(`meta.lastModified gt "${latest}"`)).toEqual(['ext-ben']);
    expect(await found(`meta.lastModified ge "${latest}"`)).toContain('ext-ben');
  });

  test.each([
    ['displayName eq "x"', 'displayName'],
    ['userName zz "x"', 'not a valid SCIM filter'],
    ['userName eq', 'not a valid SCIM filter'],
    ['active gt true', 'eq, ne or pr'],
  ])('unsupported or malformed: %s is 400 invalidFilter', async (filter, detail) => {
    const res = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidFilter' });
    expect(res.json.detail).toContain(detail);
  });

  test('POST /Users/.search takes the same filter and paging', async () => {
    const res = await scim('POST', '/Users/.search', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
      filter: 'name.familyName sw "Berg"',
      startIndex: 2,
      count: 5,
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ totalResults: 2, startIndex: 2, itemsPerPage: 1 });
  });
});

describe('paging', () => {
  test('startIndex/count are 1-based in a stable order; count=0 gives the total alone', async () => {
    const all = await scim('GET', '/Users?startIndex=1&count=100');
    const order = all.json.Resources.map((r: any) => r.id);
    expect(order.length).toBe(5);
    const pages: string[] = [];
    for (let start = 1; start <= 5; start += 2) {
      const page = await scim('GET', `/Users?startIndex=${start}&count=2`);
      expect(page.json).toMatchObject({ totalResults: 5, startIndex: start });
      pages.push(...page.json.Resources.map((r: any) => r.id));
    }
    expect(pages).toEqual(order);
    const none = await scim('GET', '/Users?count=0');
    expect(none.json).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
    const filtered = await scim(
      'GET',
      `/Users?count=0&filter=${encodeURIComponent('name.givenName eq "Anna"')}`,
    );
    expect(filtered.json).toMatchObject({ totalResults: 1, itemsPerPage: 0, Resources: [] });
  });

  test('startIndex below 1 counts as 1; a non-integer is 400', async () => {
    const res = await scim('GET', '/Users?startIndex=0&count=1');
    expect(res.json).toMatchObject({ startIndex: 1, itemsPerPage: 1 });
    const bad = await scim('GET', '/Users?count=ten');
    expect(bad.status).toBe(400);
    expect(bad.json.scimType).toBe('invalidValue');
  });
});
