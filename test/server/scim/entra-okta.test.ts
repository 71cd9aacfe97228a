/**
 * The requests Entra ID and Okta send, as fixtures rebuilt from their public documentation
 * (fixtures/scim/*.json, each request citing its source), replayed over real HTTP.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ENTERPRISE, ERROR, LIST, scimClient } from '../../helpers/scim.js';
import { startServer, type TestServer, V3 } from '../../helpers/server.js';

interface Request {
  source?: string;
  method: string;
  path: string;
  body?: unknown;
}
const load = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../fixtures/scim/${name}.json`, import.meta.url), 'utf8'));
const entra = load('entra-id') as { requests: Record<string, Request> };
const okta = load('okta') as {
  requests: Record<string, Request>;
  specTest: { steps: (Request & { name: string; badToken?: boolean; expect: any })[] };
};

/** The request with its {{placeholders}} filled in. */
function fill<T>(value: T, vars: Record<string, string>): T {
  return JSON.parse(
    JSON.stringify(value).replace(/\{\{(\w+)\}\}/g, (_, k: string) => {
      if (!(k in vars)) throw new Error(`fixture placeholder {{${k}}} has no value`);
      return vars[k]!;
    }),
  );
}

let server: TestServer;
let scim: ReturnType<typeof scimClient>;
beforeAll(async () => {
  server = await startServer();
  scim = scimClient(server);
});
afterAll(() => server.close());

const send = (r: Request, vars: Record<string, string> = {}) => {
  const req = fill(r, vars);
  return scim(req.method, req.path, req.body);
};
const rest = async (id: string) =>
  (await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } })).json;

test('every fixture request cites its source', () => {
  for (const r of [...Object.values(entra.requests), ...Object.values(okta.requests)]) {
    expect(r.source).toMatch(/^https:\/\/(learn\.microsoft\.com|developer\.okta\.com)\//);
  }
});

describe('Entra ID', () => {
  let id: string;

  test('Test Connection: an unknown GUID externalId is 200 with an empty ListResponse', async () => {
    const res = await send(entra.requests.testConnection!, { guid: randomUUID() });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ schemas: [LIST], totalResults: 0, Resources: [] });
  });

  test('Create User, then Get User by query', async () => {
    const res = await send(entra.requests.createUser!);
    expect(res.status).toBe(201);
    id = res.json.id;
    const found = await send(entra.requests.getUserByQuery!);
    expect(found.json.totalResults).toBe(1);
    expect(found.json.Resources[0].id).toBe(id);
  });

  test('JSON null sub-attributes and a mistyped extension URN are tolerated', async () => {
    const res = await send(entra.requests.createUserWithNullsAndMistypedUrn!);
    expect(res.status, res.text).toBe(201);
    expect(res.json[ENTERPRISE]).toEqual({ department: 'Finance' });
    expect(res.json.title).toBeUndefined();
  });

  test('Replace ops (capitalised) on a filtered and a dotted path', async () => {
    const res = await send(entra.requests.updateMultiValued!, { id });
    expect(res.status).toBe(200);
    const user = await rest(id);
    expect(user.email.value).toBe('updatedEmail@microsoft.com');
    expect(user.profile.lastName).toBe('updatedFamilyName');
    await send(entra.requests.updateSingleValued!, { id });
    expect((await rest(id)).userName.value).toBe(
      '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com',
    );
  });

  test('a pathless replace whose keys are dotted and URN paths', async () => {
    expect((await send(entra.requests.pathlessReplaceDottedAndUrnKeys!, { id })).status).toBe(200);
    expect((await rest(id)).profile).toMatchObject({
      firstName: 'Kim',
      lastName: 'Smith',
      position: 'Accountant',
      department: 'Tax',
    });
  });

  test('Add/Replace on a filtered path whose entry does not exist yet creates it', async () => {
    const res = await send(entra.requests.addOnMissingFilteredPath!, { id });
    expect(res.status).toBe(200);
    expect(res.json.phoneNumbers).toEqual([{ type: 'mobile', value: '+1 425 555 0100' }]);
    expect((await rest(id)).profile).toMatchObject({
      phoneNumber: '+1 425 555 0100',
      location: 'Redmond',
    });
  });

  test('"active": "False" deactivates, "True" re-activates', async () => {
    const off = await send(entra.requests.disableUserStringFalse!, { id });
    expect(off.json.active).toBe(false);
    expect((await rest(id)).status).toBe('deactivated');
    const on = await send(entra.requests.enableUserStringTrue!, { id });
    expect(on.json.active).toBe(true);
    expect((await rest(id)).status).toBe('pending');
  });

  test('Delete User: 204, then gone', async () => {
    expect((await send(entra.requests.deleteUser!, { id })).status).toBe(204);
    expect((await scim('GET', `/Users/${id}`)).status).toBe(404);
  });
});

describe('Okta', () => {
  let id: string;

  test('existence check, then create with password and groups: [] (activated)', async () => {
    const check = await send(okta.requests.existenceCheck!);
    expect(check.json).toMatchObject({ totalResults: 0, startIndex: 1, Resources: [] });
    const res = await send(okta.requests.createUser!);
    expect(res.status).toBe(201);
    id = res.json.id;
    expect(res.json).toMatchObject({
      userName: 'test.user@okta.local',
      locale: 'en-US',
      active: true,
    });
    expect((await rest(id)).status).toBe('activated');
    expect((await rest(id)).config.locale).toBe('en_US');
    expect((await send(okta.requests.existenceCheck!)).json.totalResults).toBe(1);
  });

  test('a duplicate create is 409 uniqueness', async () => {
    const res = await send(okta.requests.createUser!);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ schemas: [ERROR], status: '409', scimType: 'uniqueness' });
  });

  test('GET by id, then a profile update as a full PUT', async () => {
    expect((await send(okta.requests.getUser!, { id })).json.id).toBe(id);
    const res = await send(okta.requests.updateProfilePut!, { id });
    expect(res.status).toBe(200);
    expect(res.json.name).toEqual({ givenName: 'Another', familyName: 'User' });
  });

  test('deactivation and reactivation as pathless replaces', async () => {
    expect((await send(okta.requests.deactivate!, { id })).json.active).toBe(false);
    expect((await rest(id)).status).toBe('deactivated');
    expect((await send(okta.requests.reactivate!, { id })).json.active).toBe(true);
    // They signed up (created with a password): back to activated.
    expect((await rest(id)).status).toBe('activated');
  });

  test('the SCIM 2.0 spec test, step by step', async () => {
    const n = randomUUID().slice(0, 8);
    const vars: Record<string, string> = {
      randomUserName: `spec.${n}@atko.example`,
      randomUserNameUpper: `SPEC.${n}@ATKO.EXAMPLE`,
      randomGivenName: `Given${n}`,
      randomFamilyName: `Family${n}`,
      randomEmail: `spec.${n}@atko.example`,
      randomExternalId: `spec-${n}`,
      randomId: randomUUID(),
    };
    for (const step of okta.specTest.steps) {
      const req = fill(step, vars);
      const client = step.badToken ? scimClient(server, 'bm90OmF0b2tlbg==') : scim;
      const res = await client(req.method, req.path, req.body);
      const e = step.expect;
      expect(res.status, `${step.name}: ${res.text}`).toBe(e.status);
      if (e.list) expect(res.json.schemas, step.name).toEqual([LIST]);
      if (e.list) {
        for (const k of ['totalResults', 'startIndex', 'itemsPerPage']) {
          expect(typeof res.json[k], `${step.name}: ${k}`).toBe('number');
        }
      }
      if (e.resources !== undefined) expect(res.json.Resources).toHaveLength(e.resources);
      if (e.totalResults !== undefined)
        expect(res.json.totalResults, step.name).toBe(e.totalResults);
      if (e.error) {
        expect(res.json, step.name).toMatchObject({ schemas: [ERROR], status: String(e.status) });
        expect(res.json.detail, step.name).toEqual(expect.any(String));
      }
      for (const f of e.fields ?? []) expect(res.json[f], `${step.name}: ${f}`).toBeDefined();
      for (const path of e.echo ?? []) {
        const get = (o: any) => path.split('.').reduce((v: any, k: string) => v?.[k], o);
        expect(get(res.json), `${step.name}: ${path}`).toEqual(get(req.body) ?? get(res.json));
      }
      if (step.method === 'GET' && res.json?.Resources?.[0])
        vars.firstId ??= res.json.Resources[0].id;
      if (step.method === 'POST' && res.status === 201) vars.createdId = res.json.id;
    }
  });
});
