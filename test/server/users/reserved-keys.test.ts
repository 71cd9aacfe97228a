/**
 * Custom profile field ids that name a prototype (`__proto__`, `constructor`, `prototype`, in
 * any case) are refused by the REST API as by SCIM, in JSON and form bodies (#46, the one rule
 * in contract/safe-keys.ts). A row that holds one anyway (written before the rule, or by hand)
 * reads, changes and answers as plain data, and Object.prototype of the process stays as it was.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { sql } from '../../helpers/database.js';
import { watchPrototype } from '../../helpers/prototype-watch.js';
import { PATCH_OP, ROSTER_EXT, scimClient, scimUser } from '../../helpers/scim.js';
import { startServer, type TestServer, V2, V3 } from '../../helpers/server.js';

let server: TestServer;
const watch = watchPrototype();
beforeAll(async () => {
  server = await startServer();
});
afterEach(() => watch.restore());
afterAll(() => server.close());

const send = (method: string, path: string, body: string, contentType = V3) =>
  server.req(method, path, { headers: { 'content-type': contentType, accept: V3 }, body });

describe('a custom field id naming a prototype is 400 naming the field', () => {
  const keys = ['__proto__', 'constructor', 'prototype', 'Constructor', '__PROTO__'];

  test.each(keys.map((k, i) => [k, i] as const))(
    '%s in JSON (v3 and v2, POST and PUT) and in a form',
    async (key, i) => {
      const made = await server.req('POST', '/api/users', {
        headers: { 'content-type': V3, accept: V3 },
        body: JSON.stringify({ email: `reserved-${i}@example.com` }),
      });
      expect(made.status).toBe(201);
      // JSON text: an object literal's __proto__ key would not be a key.
      const profile = `{"${key}":{"polluted":"yes"}}`;
      const plain = `{"${key}":"yes"}`;
      for (const [method, path, type, body] of [
        ['POST', '/api/users', V3, `{"email":"new-${i}@example.com","profile":${plain}}`],
        ['POST', '/api/users', V2, `{"email":"new-${i}@example.com","profile":${plain}}`],
        ['PUT', `/api/users/${made.json.id}`, V3, `{"profile":${plain}}`],
        ['PUT', `/api/users/${made.json.id}`, V3, `{"profile":${profile}}`],
      ] as const) {
        const res = await send(method, path, body, type);
        expect(res.status, `${method} ${type} ${body}`).toBe(400);
        expect(res.json.details).toContainEqual({
          field: `profile.${key}`,
          message: expect.stringContaining('reserved'),
        });
      }
      const form = await send(
        'PUT',
        `/api/users/${made.json.id}`,
        `profile.${key}=yes`,
        'application/x-www-form-urlencoded',
      );
      expect(form.status, form.text).toBe(400);
      const after = await server.req('GET', `/api/users/${made.json.id}`, {
        headers: { accept: V3 },
      });
      expect(Object.keys(after.json.profile)).not.toContain(key);
      expect(watch.changes()).toEqual([]);
    },
  );

  test('through SCIM too: POST and PUT with the Roster extension are 400 invalidValue', async () => {
    const scim = scimClient(server);
    const body = (n: string) =>
      JSON.stringify(scimUser(n)).replace(/}$/, `,"${ROSTER_EXT}":{"constructor":"x"}}`);
    const post = await scim('POST', '/Users', body('scim-ctor'));
    expect([post.status, post.json.scimType]).toEqual([400, 'invalidValue']);
    const id = (await scim('POST', '/Users', scimUser('scim-ctor-ok'))).json.id;
    const put = await scim('PUT', `/Users/${id}`, body('scim-ctor-ok'));
    expect([put.status, put.json.scimType]).toEqual([400, 'invalidValue']);
  });
});

describe('a row that holds such keys anyway changes nothing', () => {
  test('it reads (REST v3, v2, SCIM), takes a change and a SCIM PATCH; Object.prototype stays', async () => {
    const scim = scimClient(server);
    const id = (await scim('POST', '/Users', scimUser('legacy'))).json.id;
    // An older server stored `constructor` and `prototype` as fields; a hand edit (or a bug)
    // could leave a `__proto__` payload: the guard never saw any of these.
    const custom =
      '{"__proto__":{"polluted":"yes"},"constructor":"c","prototype":"p","team":"Blue"}';
    await sql(server.store, 'UPDATE users SET custom = ? WHERE id = ?', custom, id);
    for (const accept of [V3, V2]) {
      const read = await server.req('GET', `/api/users/${id}`, { headers: { accept } });
      expect(read.status, read.text).toBe(200);
      expect(read.json.profile.team).toBe('Blue');
      expect(read.json.profile.polluted).toBeUndefined();
    }
    const got = await scim('GET', `/Users/${id}`);
    expect(got.status, got.text).toBe(200);
    expect(got.json[ROSTER_EXT].team).toBe('Blue');
    const put = await send('PUT', `/api/users/${id}`, '{"profile":{"team":"Red"}}');
    expect(put.status, put.text).toBe(200);
    const patched = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: `${ROSTER_EXT}:team`, value: 'Green' }],
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json[ROSTER_EXT].team).toBe('Green');
    expect(watch.changes()).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Every write still works (the issue: one pollution failed every later write).
    const other = await server.req('POST', '/api/users', {
      headers: { 'content-type': V3, accept: V3 },
      body: '{"email":"after-legacy@example.com","profile":{"team":"x"}}',
    });
    expect(other.status, other.text).toBe(201);
  });
});
