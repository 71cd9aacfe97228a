/**
 * PATCH as Roster applies it itself (patch.ts, patch-apply.ts; scim-patch is gone, #46): the
 * RFC 7644 §3.5.2 rules the other SCIM tests do not reach, attributes outside the map ignored,
 * and the caps (operations per request, values per multi-valued attribute) as 400 tooMany
 * before anything applies, advertised in ServiceProviderConfig.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ENTERPRISE, patchOps, ROSTER_EXT, scimClient, scimUser } from '../../helpers/scim.js';
import { startServer, type TestServer, V3 } from '../../helpers/server.js';

let server: TestServer;
let scim: ReturnType<typeof scimClient>;
beforeAll(async () => {
  server = await startServer();
  scim = scimClient(server);
});
afterAll(() => server.close());

const create = async (n: string, extra: Record<string, unknown> = {}) => {
  const res = await scim('POST', '/Users', scimUser(n, extra));
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
};
const rest = async (id: string) =>
  (await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } })).json;

describe('what an operation does', () => {
  test('remove on a filtered path removes that value; other values stay', async () => {
    const id = await create('rm-filter', {
      phoneNumbers: [{ type: 'mobile', value: '+1 555 0100' }],
      emails: [
        { type: 'work', value: 'rm-filter@example.com', primary: true },
        { type: 'public', value: 'public@example.com' },
      ],
    });
    const res = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps(
        { op: 'remove', path: 'phoneNumbers[type eq "mobile"]' },
        { op: 'remove', path: 'emails[type eq "public"].value' },
      ),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.phoneNumbers).toBeUndefined();
    expect(res.json.emails).toEqual([
      { type: 'work', value: 'rm-filter@example.com', primary: true },
    ]);
    expect((await rest(id)).profile).toMatchObject({
      phoneNumber: null,
      publicEmailAddress: null,
    });
  });

  test('replace of a complex attribute sets the sub-attributes given and keeps the others', async () => {
    const id = await create('complex');
    const res = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({ op: 'replace', path: 'name', value: { givenName: 'New' } }),
    );
    expect(res.json.name).toEqual({ givenName: 'New', familyName: 'Familycomplex' });
  });

  test('attribute names compare without case, paths and pathless keys alike', async () => {
    const id = await create('caseless');
    const res = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps(
        { op: 'replace', path: 'NAME.GIVENNAME', value: 'Upper' },
        {
          op: 'replace',
          value: { Title: 'Boss', 'Emails[Type eq "WORK"].Value': 'c@example.com' },
        },
      ),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ name: { givenName: 'Upper' }, title: 'Boss' });
    expect(res.json.emails[0].value).toBe('c@example.com');
  });

  test("a pathless value may hold a schema's whole object (enterprise, Roster extension)", async () => {
    const id = await create('schema-object');
    const res = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({
        op: 'add',
        value: { [ENTERPRISE]: { department: 'Ops' }, [ROSTER_EXT]: { team: 'Red' } },
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json[ENTERPRISE]).toEqual({ department: 'Ops' });
    expect(res.json[ROSTER_EXT]).toEqual({ team: 'Red' });
  });

  test('an attribute Roster does not keep is ignored: 200, the user unchanged', async () => {
    const id = await create('unkept');
    const res = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps(
        { op: 'replace', path: 'nickName', value: 'Nick' },
        { op: 'add', path: 'urn:example:params:scim:schemas:extension:other:2.0:User:x', value: 1 },
        { op: 'replace', value: { displayName: 'Shown' } },
      ),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.meta.version).toBe('W/"1"');
    expect(res.json.nickName).toBeUndefined();
  });

  test('emails.value without a filter: the one email there is; of two, 400 invalidPath', async () => {
    const one = await create('one-email');
    const res = await scim(
      'PATCH',
      `/Users/${one}`,
      patchOps({ op: 'replace', path: 'emails.value', value: 'changed@example.com' }),
    );
    expect(res.status, res.text).toBe(200);
    expect((await rest(one)).email.value).toBe('changed@example.com');
    const two = await create('two-emails', {
      emails: [
        { type: 'work', value: 'two-emails@example.com', primary: true },
        { type: 'public', value: 'two-public@example.com' },
      ],
    });
    const refused = await scim(
      'PATCH',
      `/Users/${two}`,
      patchOps({ op: 'replace', path: 'emails.value', value: 'x@example.com' }),
    );
    expect([refused.status, refused.json.scimType]).toEqual([400, 'invalidPath']);
    expect(refused.json.detail).toContain('emails[type eq "work"].value');
  });

  test('a filter that matches nothing and is no eq comparison cannot make a value: 400 noTarget', async () => {
    const id = await create('no-target');
    const res = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({ op: 'add', path: 'phoneNumbers[value co "555"].value', value: '+1 555' }),
    );
    expect([res.status, res.json.scimType]).toEqual([400, 'noTarget']);
  });

  test('a path that is no attribute path, or a filter on a single value: 400 invalidPath', async () => {
    const id = await create('bad-path');
    for (const path of ['name..givenName', 'title[type eq "x"]', 'userName.value', 'a b']) {
      const res = await scim('PATCH', `/Users/${id}`, patchOps({ op: 'add', path, value: 'x' }));
      expect([res.status, res.json.scimType], path).toEqual([400, 'invalidPath']);
    }
  });
});

describe('caps', () => {
  const title = (n: number) => ({ op: 'replace', path: 'title', value: `T${n}` });

  test(`more than 100 operations: 400 tooMany, none applied; 100 apply`, async () => {
    const id = await create('many-ops');
    const over = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps(...Array.from({ length: 101 }, (_, i) => title(i))),
    );
    expect([over.status, over.json.scimType]).toEqual([400, 'tooMany']);
    expect(over.json.detail).toContain('at most 100 operations');
    expect((await scim('GET', `/Users/${id}`)).json.title).toBeUndefined();
    const hundred = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps(...Array.from({ length: 100 }, (_, i) => title(i))),
    );
    expect(hundred.status, hundred.text).toBe(200);
    expect(hundred.json.title).toBe('T99');
  });

  test('more than 10 values of a multi-valued attribute: 400 tooMany, by PATCH or POST', async () => {
    const id = await create('many-values');
    const email = (i: number) => ({ type: 'other', value: `alias${i}@example.com` });
    // One value per op (the 8,000 `add emails` ops, cut down): refused at the 11th.
    const oneByOne = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps(
        ...Array.from({ length: 11 }, (_, i) => ({ op: 'add', path: 'emails', value: [email(i)] })),
      ),
    );
    expect([oneByOne.status, oneByOne.json.scimType]).toEqual([400, 'tooMany']);
    expect(oneByOne.json.detail).toContain('emails holds at most 10 values');
    const atOnce = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({
        op: 'replace',
        path: 'emails',
        value: Array.from({ length: 11 }, (_, i) => email(i)),
      }),
    );
    expect([atOnce.status, atOnce.json.scimType]).toEqual([400, 'tooMany']);
    expect((await scim('GET', `/Users/${id}`)).json.meta.version).toBe('W/"1"');
    const post = await scim(
      'POST',
      '/Users',
      scimUser('many-values-post', {
        phoneNumbers: Array.from({ length: 11 }, (_, i) => ({ type: 'other', value: `+1 ${i}` })),
      }),
    );
    expect([post.status, post.json.scimType]).toEqual([400, 'tooMany']);
  });

  test('ServiceProviderConfig advertises both caps', async () => {
    const res = await scim('GET', '/ServiceProviderConfig');
    expect(res.json.patch).toEqual({ supported: true, maxOperations: 100, maxValues: 10 });
  });
});
