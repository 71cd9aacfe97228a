/**
 * Field round 3 (issue 44, item 16): what RFC 7643/7644 require of POST, Bulk, a filtered
 * Replace that matches nothing, filter errors and locales, in SCIM's own terms.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectScimError, patchOps, scimClient, scimUser } from '../../helpers/scim.js';
import { jsonBody, startServer, type TestServer, V3 } from '../../helpers/server.js';

let server: TestServer;
let scim: ReturnType<typeof scimClient>;
beforeAll(async () => {
  server = await startServer();
  scim = scimClient(server);
});
afterAll(() => server.close());

const restUser = (body: Record<string, unknown>) =>
  server.req('POST', '/api/users', jsonBody({ sendMail: false, ...body }, V3));

describe('RFC 7643/7644 requirements', () => {
  test('a POST without userName is 400 invalidValue', async () => {
    const { userName: _, ...body } = scimUser('nouser');
    expectScimError(await scim('POST', '/Users', body), 400, 'invalidValue');
  });

  test('a POST without schemas is 400 invalidSyntax', async () => {
    const { schemas: _, ...body } = scimUser('noschemas');
    expectScimError(await scim('POST', '/Users', body), 400, 'invalidSyntax');
  });

  test('/Bulk is 501, as /Me is', async () => {
    const res = await scim('POST', '/Bulk', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
      Operations: [],
    });
    expectScimError(res, 501);
  });

  test('a Replace on a filtered path that matches nothing is 400 noTarget; no login email is made', async () => {
    const u = await restUser({ userName: 'no-mail-user' });
    const id = u.json.id;
    const mail = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({ op: 'replace', path: 'emails[type eq "work"].value', value: 'made@example.com' }),
    );
    expectScimError(mail, 400, 'noTarget');
    const whole = await scim(
      'PATCH',
      `/Users/${id}`,
      patchOps({
        op: 'replace',
        path: 'phoneNumbers[type eq "mobile"]',
        value: { value: '+1 555' },
      }),
    );
    expectScimError(whole, 400, 'noTarget');
    const after = await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
    expect(after.json.email).toBeNull();
    expect(after.json.profile.phoneNumber ?? null).toBeNull();
  });

  test('an invalid filter says where, without the parser internals', async () => {
    for (const filter of [
      'userName eq',
      'userName eq "a" and',
      'userName zz "a"',
      '(userName eq "a"',
    ]) {
      const res = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expectScimError(res, 400, 'invalidFilter');
      expect(res.json.detail).not.toMatch(/EOT|is not json|\(Word\)|\(Operator\)|valFilter/);
      expect(res.json.detail).toMatch(/position \d+|ends/);
    }
  });

  test('a locale error speaks SCIM: de-DE, not de_DE', async () => {
    const res = await scim('POST', '/Users', scimUser('locale', { locale: 'german' }));
    expectScimError(res, 400, 'invalidValue');
    expect(res.json.detail).toContain('de-DE');
    expect(res.json.detail).not.toContain('de_DE');
  });
});
