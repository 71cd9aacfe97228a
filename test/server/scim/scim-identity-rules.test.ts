/**
 * Field round 3 (issue 44, items 4, 5, 6): a userName derived from the email counts for
 * uniqueness, no write leaves a user without a login identity, and a SCIM delete cleans up as
 * a REST one does.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CORE_USER, expectScimError, patchOps, scimClient, scimUser } from '../../helpers/scim.js';
import { jsonBody, startServer, type TestServer, V3 } from '../../helpers/server.js';
import { upload } from '../media/media-helpers.js';

let server: TestServer;
let scim: ReturnType<typeof scimClient>;
beforeAll(async () => {
  server = await startServer();
  scim = scimClient(server);
});
afterAll(() => server.close());

const restUser = (body: Record<string, unknown>) =>
  server.req('POST', '/api/users', jsonBody({ sendMail: false, ...body }, V3));

describe('a userName derived from the email counts for uniqueness', () => {
  test('a SCIM POST taking the userName a REST user is served with is 409; the filter finds the original', async () => {
    const original = await restUser({ email: 'derived1@example.com' });
    expect(original.status).toBe(201);
    const taken = await scim(
      'POST',
      '/Users',
      scimUser('d1', { userName: 'Derived1@Example.com' }),
    );
    expectScimError(taken, 409, 'uniqueness');
    const found = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "derived1@example.com"')}`,
    );
    expect(found.json.Resources.map((r: any) => r.id)).toEqual([original.json.id]);
    // The provider's PUT echoing what it was served keeps working.
    const put = await scim('PUT', `/Users/${original.json.id}`, {
      schemas: [CORE_USER],
      userName: 'derived1@example.com',
      emails: [{ value: 'derived1@example.com', type: 'work' }],
      active: true,
    });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
  });

  test('a PATCH to that userName is 409, and a REST user by email is 409 against an explicit userName', async () => {
    await restUser({ email: 'derived2@example.com' });
    const other = await scim('POST', '/Users', scimUser('d2'));
    expect(other.status).toBe(201);
    const patched = await scim(
      'PATCH',
      `/Users/${other.json.id}`,
      patchOps({ op: 'replace', path: 'userName', value: 'derived2@example.com' }),
    );
    expectScimError(patched, 409, 'uniqueness');
    // user<d2>@example.com is now the SCIM user's userName (and email); a third by a userName
    // that is someone's email-derived one, via REST:
    const byUserName = await restUser({ userName: 'derived2@example.com' });
    expect(byUserName.status).toBe(409);
    expect(byUserName.json.message).toContain('userName');
  });

  test('racing creates of one login, by email and by userName: exactly one wins', async () => {
    const login = 'race@example.com';
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0
          ? restUser({ email: login })
          : scim('POST', '/Users', scimUser(`race${i}`, { userName: login })),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });
});

describe('no write leaves a user without a login identity', () => {
  test('a SCIM PATCH removing the emails of a user whose userName is its email: 400, unchanged', async () => {
    const u = await restUser({ email: 'only-email@example.com', externalId: 'ext-only-email' });
    const res = await scim(
      'PATCH',
      `/Users/${u.json.id}`,
      patchOps({ op: 'remove', path: 'emails' }, { op: 'remove', path: 'externalId' }),
    );
    expectScimError(res, 400, 'invalidValue');
    expect(res.json.detail).toContain('neither an email nor a userName');
    const after = await scim('GET', `/Users/${u.json.id}`);
    expect(after.json.emails[0].value).toBe('only-email@example.com');
    expect(after.json.externalId).toBe('ext-only-email');
  });

  test('a REST PUT clearing both is 400; clearing one of two is fine', async () => {
    const u = await restUser({ email: 'both@example.com', userName: 'both' });
    const id = u.json.id;
    const none = await server.req(
      'PUT',
      `/api/users/${id}`,
      jsonBody({ email: null, userName: null }, V3),
    );
    expect(none.status).toBe(400);
    expect(none.json.message).toContain('neither an email nor a userName');
    const one = await server.req('PUT', `/api/users/${id}`, jsonBody({ email: null }, V3));
    expect(one.status).toBe(200);
    const last = await server.req('PUT', `/api/users/${id}`, jsonBody({ userName: null }, V3));
    expect(last.status).toBe(400);
  });
});

test("a SCIM DELETE takes the avatar's media along, as a REST delete does", async () => {
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3c3' } })
    .jpeg()
    .toBuffer();
  const avatar: Record<string, { url: string }> = {};
  const ids: string[] = [];
  for (const name of ['original', 'thumb', 'icon']) {
    const r = await upload(server, jpeg, `avatar.00112233aabbccdd.${name}.jpg`, { type: 'image' });
    expect(r.status).toBe(200);
    avatar[name] = { url: r.json.resourceInfo.url };
    ids.push(r.json.id);
  }
  const u = await restUser({ email: 'photo@example.com', profile: { avatar } });
  expect(u.status, JSON.stringify(u.json)).toBe(201);
  expect((await scim('DELETE', `/Users/${u.json.id}`)).status).toBe(204);
  for (const id of ids) expect((await server.req('GET', `/api/media/${id}`)).status).toBe(404);
});
