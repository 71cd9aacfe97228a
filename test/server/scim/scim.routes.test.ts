/**
 * /scim/v2 over real HTTP (the app on a real port, on the backend the run chooses): discovery,
 * auth, the User lifecycle, the attribute map, errors, and that SCIM and REST see one user.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Scope } from '../../../src/contract/scopes.js';
import {
  CORE_USER,
  ENTERPRISE,
  ERROR,
  patchOps,
  ROSTER_EXT,
  SCIM_TYPE,
  scimClient,
  scimUser,
} from '../../helpers/scim.js';
import { jsonBody, startServer, type TestServer, V3 } from '../../helpers/server.js';
import { extensionAttributes } from '../../helpers/user-fields.js';

let server: TestServer;
let scim: ReturnType<typeof scimClient>;

beforeAll(async () => {
  server = await startServer();
  scim = scimClient(server);
});
afterAll(() => server.close());

function expectScimError(res: { status: number; json: any; headers: any }, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toContain(SCIM_TYPE);
  expect(res.json.schemas).toEqual([ERROR]);
  expect(res.json.status).toBe(String(status));
  expect(typeof res.json.detail).toBe('string');
}

describe('discovery', () => {
  test('ServiceProviderConfig says what is supported: patch, filter, etag; no bulk, no sort', async () => {
    const res = await scim('GET', '/ServiceProviderConfig');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain(SCIM_TYPE);
    expect(res.json).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 1000 },
      bulk: { supported: false },
      sort: { supported: false },
      etag: { supported: true },
    });
    // Optional, and this service has no public documentation address of its own to give.
    expect(res.json).not.toHaveProperty('documentationUri');
  });

  test('ResourceTypes has User only (no Groups), with both extensions', async () => {
    const res = await scim('GET', '/ResourceTypes');
    expect(res.json.Resources.map((r: any) => r.id)).toEqual(['User']);
    expect(res.json.Resources[0].schemaExtensions.map((e: any) => e.schema)).toEqual([
      ENTERPRISE,
      ROSTER_EXT,
    ]);
  });

  test('Schemas: core User and the enterprise extension from the field table, the Roster extension', async () => {
    const res = await scim('GET', '/Schemas');
    const [core, enterprise, roster] = res.json.Resources;
    expect(core.id).toBe(CORE_USER);
    const names = core.attributes.map((a: any) => a.name);
    for (const n of [
      'userName',
      'name',
      'emails',
      'phoneNumbers',
      'addresses',
      'title',
      'locale',
      'password',
      'active',
    ]) {
      expect(names).toContain(n);
    }
    expect(core.attributes.find((a: any) => a.name === 'userName')).toMatchObject({
      required: true,
      uniqueness: 'server',
      caseExact: false,
    });
    expect(core.attributes.find((a: any) => a.name === 'password').returned).toBe('never');
    expect(enterprise.attributes.map((a: any) => a.name)).toEqual(extensionAttributes(ENTERPRISE));
    expect(extensionAttributes(ENTERPRISE)).toContain('department');
    expect(roster.id).toBe(ROSTER_EXT);
  });

  test('/Groups answers a SCIM 404', async () => {
    expectScimError(await scim('GET', '/Groups'), 404);
    expectScimError(await scim('GET', '/Groups/abc'), 404);
  });
});

describe('auth', () => {
  test('no token and a bad token: 401 in the Error schema, status a string', async () => {
    expectScimError(await scim('GET', '/Users', undefined, { authorization: '' }), 401);
    expectScimError(await scimClient(server, 'bm90OmF0b2tlbg==')('GET', '/Users'), 401);
  });

  test('a 401 asks for a Bearer token (WWW-Authenticate, and the detail says how to make one)', async () => {
    const res = await scim('GET', '/Users', undefined, { authorization: '' });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="roster"');
    expect(res.json.detail).toContain('"Authorization: Bearer <token>"');
    expect(res.json.detail).toContain('roster tokens create --for scim');
  });

  test('Basic works as on the REST API', async () => {
    const res = await scim('GET', '/Users', undefined, {
      authorization: `Basic ${await server.token({ channels: ['scim'] })}`,
    });
    expect(res.status).toBe(200);
  });

  test('a missing scope is 403: reads need users:read, writes users:write', async () => {
    const made = (scope: Scope) => server.token({ scopes: [scope], channels: ['scim'] });
    const readOnly = scimClient(server, await made('users:read'));
    const writeOnly = scimClient(server, await made('users:write'));
    expectScimError(await readOnly('POST', '/Users', scimUser('scope')), 403);
    expectScimError(await writeOnly('GET', '/Users'), 403);
    expect((await readOnly('GET', '/Users')).status).toBe(200);
  });
});

describe('users', () => {
  const full = scimUser('full', {
    schemas: [CORE_USER, ENTERPRISE, ROSTER_EXT],
    title: 'Engineer',
    locale: 'de-DE',
    phoneNumbers: [{ value: '+49 89 1234', type: 'mobile' }],
    addresses: [{ locality: 'Munich', type: 'work' }],
    emails: [
      { value: 'full@example.com', type: 'work', primary: true },
      { value: 'public@example.com', type: 'public' },
    ],
    [ENTERPRISE]: { department: 'R&D' },
    [ROSTER_EXT]: { shoeSize: '44' },
  });

  test('create: 201, Location, every mapped attribute echoed; the REST API sees the same user', async () => {
    const res = await scim('POST', '/Users', full);
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toContain(SCIM_TYPE);
    const id = res.json.id;
    expect(res.headers.location).toBe(`${server.url}/scim/v2/Users/${id}`);
    expect(res.json).toMatchObject({
      externalId: 'ext-full',
      userName: 'userfull@example.com',
      name: { givenName: 'Givenfull', familyName: 'Familyfull' },
      title: 'Engineer',
      locale: 'de-DE',
      active: true,
      phoneNumbers: [{ type: 'mobile', value: '+49 89 1234' }],
      addresses: [{ type: 'work', locality: 'Munich' }],
      [ENTERPRISE]: { department: 'R&D' },
      [ROSTER_EXT]: { shoeSize: '44' },
      meta: { resourceType: 'User', location: res.headers.location },
    });
    expect(res.json.emails).toEqual(
      expect.arrayContaining([
        { type: 'work', value: 'full@example.com', primary: true },
        { type: 'public', value: 'public@example.com' },
      ]),
    );
    expect(res.json.password).toBeUndefined();

    const rest = await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
    expect(rest.json).toMatchObject({
      externalId: 'ext-full',
      email: { value: 'full@example.com' },
      config: { locale: 'de_DE' },
      status: 'pending',
      profile: {
        firstName: 'Givenfull',
        position: 'Engineer',
        department: 'R&D',
        location: 'Munich',
        phoneNumber: '+49 89 1234',
        publicEmailAddress: 'public@example.com',
        shoeSize: '44',
      },
    });
  });

  test('a SCIM-created user gets no invitation mail (the tenant has not asked for them)', async () => {
    const before = await server.store.outbox.pending();
    const res = await scim('POST', '/Users', scimUser('nomail', { password: undefined }));
    expect(res.status).toBe(201);
    expect(await server.store.outbox.pending()).toBe(before);
  });

  test('without a password the user is pending (active for an IdP); with one, activated', async () => {
    const pending = await scim('POST', '/Users', scimUser('pending'));
    const activated = await scim('POST', '/Users', scimUser('withpw', { password: 'Secret-123' }));
    expect(pending.json.active).toBe(true);
    const status = async (id: string) =>
      (await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } })).json.status;
    expect(await status(pending.json.id)).toBe('pending');
    expect(await status(activated.json.id)).toBe('activated');
  });

  test('externalId is required to create; a duplicate is 409 uniqueness', async () => {
    const missing = await scim('POST', '/Users', scimUser('noext', { externalId: undefined }));
    expectScimError(missing, 400);
    expect(missing.json.detail).toContain('externalId');
    expect((await scim('POST', '/Users', scimUser('dup'))).status).toBe(201);
    const again = await scim('POST', '/Users', scimUser('dup'));
    expectScimError(again, 409);
    expect(again.json.scimType).toBe('uniqueness');
  });

  test('GET by id; an unknown id is 404 with detail', async () => {
    const created = await scim('POST', '/Users', scimUser('get'));
    const res = await scim('GET', `/Users/${created.json.id}`);
    expect(res.json).toEqual(created.json);
    const missing = await scim('GET', '/Users/0123456789abcdef01234567');
    expectScimError(missing, 404);
    expect(missing.json.detail).toContain('0123456789abcdef01234567');
  });

  test('PUT replaces: an attribute left out is cleared, keys and password stay', async () => {
    const created = await scim('POST', '/Users', {
      ...full,
      externalId: 'ext-put',
      userName: 'put@example.com',
      emails: [{ value: 'put@example.com', type: 'work' }],
    });
    const id = created.json.id;
    const res = await scim('PUT', `/Users/${id}`, {
      schemas: [CORE_USER],
      externalId: 'ext-put',
      userName: 'put@example.com',
      name: { givenName: 'Renamed', familyName: 'Familyfull' },
      emails: [{ value: 'put@example.com', type: 'work', primary: true }],
      active: true,
    });
    expect(res.status).toBe(200);
    expect(res.json.name.givenName).toBe('Renamed');
    expect(res.json.title).toBeUndefined();
    expect(res.json.phoneNumbers).toBeUndefined();
    expect(res.json[ENTERPRISE]).toBeUndefined();
    // Custom fields change only where the Roster extension names them.
    expect(res.json[ROSTER_EXT]).toEqual({ shoeSize: '44' });
  });

  test('PATCH with paths: replace, add on a filtered path, remove', async () => {
    const id = (await scim('POST', '/Users', scimUser('patch'))).json.id;
    const res = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps(
        { op: 'replace', path: 'name.familyName', value: 'Changed' },
        { op: 'add', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 555' },
        { op: 'replace', path: `${ENTERPRISE}:department`, value: 'Sales' },
        { op: 'add', path: `${ROSTER_EXT}:team`, value: 'Blue' },
        { op: 'remove', path: 'name.givenName' },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.json.name).toEqual({ familyName: 'Changed' });
    expect(res.json.phoneNumbers).toEqual([{ type: 'mobile', value: '+1 555' }]);
    expect(res.json[ENTERPRISE]).toEqual({ department: 'Sales' });
    expect(res.json[ROSTER_EXT]).toEqual({ team: 'Blue' });
    const rest = await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
    expect(rest.json.profile).toMatchObject({
      lastName: 'Changed',
      firstName: null,
      department: 'Sales',
      team: 'Blue',
    });
  });

  test('PATCH sets a password (an IdP pushing one): hashed and stored, honouring If-Match', async () => {
    const created = await scim('POST', '/Users', scimUser('pwpush'));
    const id = created.json.id;
    const setPassword = (headers: Record<string, string> = {}) =>
      scim(
        'PATCH',
        `/Users/${id}`,
        patchOps({ op: 'replace', value: { password: 'Pushed-123' } }),
        headers,
      );
    // Derived from version 1, written only to it: a stale If-Match is 412, nothing stored.
    expectScimError(await setPassword({ 'if-match': 'W/"7"' }), 412);
    const activate = () =>
      server.req('PUT', `/api/users/${id}`, {
        ...jsonBody({ status: 'activated' }),
        headers: { accept: V3, 'content-type': V3 },
      });
    // Activation needs a secret: refused before the password, accepted after it.
    expect((await activate()).status).toBe(409);
    const pushed = await setPassword({ 'if-match': created.headers.etag ?? '' });
    expect(pushed.status).toBe(200);
    expect(pushed.json.password).toBeUndefined();
    expect(pushed.json.meta.version).toBe('W/"2"');
    expect((await activate()).status).toBe(200);
    expectScimError(
      await scim(
        'PATCH',
        '/Users/000000000000000000000000',
        patchOps({ op: 'replace', value: { password: 'x-123456' } }),
      ),
      404,
    );
  });

  test('active: false deactivates (GET still shows the user); true re-activates, to pending if never signed up', async () => {
    const id = (await scim('POST', '/Users', scimUser('active'))).json.id;
    const off = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({ op: 'replace', path: 'active', value: false }),
    );
    expect(off.json.active).toBe(false);
    expect((await scim('GET', `/Users/${id}`)).json.active).toBe(false);
    const list = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('externalId eq "ext-active"')}`,
    );
    expect(list.json.Resources[0].active).toBe(false);
    const on = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({ op: 'replace', value: { active: true } }),
    );
    expect(on.json.active).toBe(true);
    const rest = await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
    expect(rest.json.status).toBe('pending');
    // true on a pending user changes nothing.
    const again = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({ op: 'replace', path: 'active', value: true }),
    );
    expect(again.status).toBe(200);
  });

  test('DELETE: 204, then 404', async () => {
    const id = (await scim('POST', '/Users', scimUser('delete'))).json.id;
    const res = await scim('DELETE', `/Users/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectScimError(await scim('GET', `/Users/${id}`), 404);
  });
});

describe('ETag and If-Match', () => {
  test('meta.version and ETag are W/"<version>"; the REST GET sends the same', async () => {
    const created = await scim('POST', '/Users', scimUser('etag'));
    expect(created.json.meta.version).toBe('W/"1"');
    expect(created.headers.etag).toBe('W/"1"');
    const id = created.json.id;
    const patched = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({ op: 'replace', path: 'title', value: 'T' }),
    );
    expect(patched.headers.etag).toBe('W/"2"');
    const got = await scim('GET', `/Users/${id}`);
    expect(got.headers.etag).toBe('W/"2"');
    const rest = await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
    expect(rest.headers.etag).toBe(got.headers.etag);
  });

  test('a stale If-Match is 412 on PUT, PATCH and DELETE, and changes nothing', async () => {
    const created = await scim('POST', '/Users', scimUser('ifmatch'));
    const id = created.json.id;
    await scim('PATCH', `/Users/${id}`, patchOps({ op: 'replace', path: 'title', value: 'T' }));
    const stale = { 'if-match': 'W/"1"' };
    expectScimError(
      await scim(
        'PATCH',
        `/Users/${id}`,
        patchOps({ op: 'replace', path: 'title', value: 'X' }),
        stale,
      ),
      412,
    );
    expectScimError(
      await scim('PUT', `/Users/${id}`, scimUser('ifmatch', { title: 'X' }), stale),
      412,
    );
    expectScimError(await scim('DELETE', `/Users/${id}`, undefined, stale), 412);
    const now = await scim('GET', `/Users/${id}`);
    expect(now.json.title).toBe('T');
    const ok = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({ op: 'replace', path: 'title', value: 'X' }),
      {
        'if-match': now.headers.etag ?? '',
      },
    );
    expect(ok.json.title).toBe('X');
  });
});

describe('SCIM and REST see one user', () => {
  test('a REST user with no userName shows its email as userName and is found by it', async () => {
    const made = await server.req(
      'POST',
      '/api/users',
      jsonBody({ email: 'Rest.Only@example.com', externalId: 'rest-1' }),
    );
    expect(made.status).toBe(201);
    const res = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "rest.only@example.com"')}`,
    );
    expect(res.json.totalResults).toBe(1);
    expect(res.json.Resources[0]).toMatchObject({
      id: made.json.id,
      userName: 'Rest.Only@example.com',
    });
  });

  test('a REST change shows in SCIM, a SCIM change in REST', async () => {
    const id = (await scim('POST', '/Users', scimUser('cross'))).json.id;
    await server.req('PUT', `/api/users/${id}`, jsonBody({ profile: { position: 'CTO' } }));
    expect((await scim('GET', `/Users/${id}`)).json.title).toBe('CTO');
    await scim('PATCH', `/Users/${id}`, patchOps({ op: 'replace', path: 'title', value: 'CEO' }));
    const rest = await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
    expect(rest.json.profile.position).toBe('CEO');
  });
});

describe('errors', () => {
  test('a control character is 400 naming the field, as on the REST API', async () => {
    const res = await scim('POST', '/Users', scimUser('ctl', { title: 'bad\u0007title' }));
    expectScimError(res, 400);
    expect(res.json.scimType).toBe('invalidValue');
    expect(res.json.detail).toContain('profile.position');
  });

  test('a body over 1 MiB is 413', async () => {
    const res = await scim('POST', '/Users', scimUser('big', { title: 'x'.repeat(1024 * 1024) }));
    expectScimError(res, 413);
  });

  test('malformed JSON is 400 invalidSyntax; a body that is not JSON is 415', async () => {
    const malformed = await scim('POST', '/Users', '{"userName":');
    expectScimError(malformed, 400);
    expect(malformed.json.scimType).toBe('invalidSyntax');
    expectScimError(
      await scim('POST', '/Users', 'userName=x', { 'content-type': 'text/plain' }),
      415,
    );
  });

  test('application/json is accepted both ways', async () => {
    const res = await scim('POST', '/Users', scimUser('plainjson'), {
      'content-type': 'application/json',
      accept: 'application/json',
    });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toContain('application/json');
  });

  test('an unknown path under /scim/v2 is a SCIM 404; /Me, which is not supported, 501', async () => {
    expectScimError(await scim('GET', '/Nothing'), 404);
    expectScimError(await scim('GET', '/Me'), 501);
  });
});

describe('a value of a known attribute that is not what it should be is refused, not dropped', () => {
  const users = async () => (await scim('GET', '/Users?count=1000')).json.totalResults as number;

  test('active that is not true or false: 400 invalidValue on POST, PUT and PATCH', async () => {
    const before = await users();
    for (const active of ['maybe', 1]) {
      const res = await scim('POST', '/Users', scimUser(`active-${active}`, { active }));
      expectScimError(res, 400);
      expect([res.json.scimType, res.json.detail]).toEqual([
        'invalidValue',
        expect.stringContaining('active'),
      ]);
    }
    expect(await users()).toBe(before);
    const id = (await scim('POST', '/Users', scimUser('active-ok'))).json.id;
    const put = await scim('PUT', `/Users/${id}`, scimUser('active-ok', { active: 'nope' }));
    expectScimError(put, 400);
    for (const value of ['nope', 1, null]) {
      const res = await scim(
        'PATCH',
        `/Users/${id}`,
        patchOps({ op: 'Replace', path: 'active', value }),
      );
      expectScimError(res, 400);
      expect(res.json.scimType).toBe('invalidValue');
    }
    expect((await scim('GET', `/Users/${id}`)).json.active).toBe(true);
  });

  test('a multi-valued attribute that is not a list: 400 invalidValue; the email is kept', async () => {
    const res = await scim('POST', '/Users', scimUser('emails-string', { emails: 'e@x.com' }));
    expectScimError(res, 400);
    expect([res.json.scimType, res.json.detail]).toEqual([
      'invalidValue',
      expect.stringContaining('emails'),
    ]);
    const id = (await scim('POST', '/Users', scimUser('emails-kept'))).json.id;
    const replaced = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({ op: 'replace', path: 'emails', value: 'other@example.com' }),
    );
    expectScimError(replaced, 400);
    expect((await scim('GET', `/Users/${id}`)).json.emails[0].value).toBe(
      'useremails-kept@example.com',
    );
  });

  test('Add of a new work email replaces the one there is (one per type)', async () => {
    const id = (await scim('POST', '/Users', scimUser('add-email'))).json.id;
    const res = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({
        op: 'Add',
        path: 'emails',
        value: [{ type: 'work', value: 'new-work@example.com', primary: true }],
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.emails).toEqual([
      { type: 'work', value: 'new-work@example.com', primary: true },
    ]);
  });

  test('of two work emails the primary one is the login email; a non-primary alias added changes nothing', async () => {
    const two = [
      { type: 'work', value: 'primary@example.com', primary: true },
      { type: 'work', value: 'alias@example.com' },
    ];
    const created = await scim('POST', '/Users', scimUser('two-work', { emails: two }));
    expect(created.status, created.text).toBe(201);
    expect(created.json.emails[0].value).toBe('primary@example.com');
    const alias = await scim(
      'PATCH',
      `/Users/${created.json.id}`,
      patchOps({
        op: 'add',
        path: 'emails',
        value: [{ type: 'work', value: 'other@example.com' }],
      }),
    );
    expect(alias.status, alias.text).toBe(200);
    expect(alias.json.emails[0].value).toBe('primary@example.com');
  });

  test('a pathless op whose keys are filtered paths (as Entra sends them) applies them', async () => {
    const id = (await scim('POST', '/Users', scimUser('pathless-filter'))).json.id;
    const res = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({
        op: 'Add',
        value: { 'emails[type eq "work"].value': 'filtered@example.com', 'name.givenName': 'Pat' },
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json.emails[0].value).toBe('filtered@example.com');
    expect(res.json.name.givenName).toBe('Pat');
  });
});
