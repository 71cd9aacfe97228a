/** The REST API's ETag on GET by id is the user's version counter; PUT and DELETE honour If-Match. */
import { expect, test } from 'vitest';
import { jsonBody, serverForFile, V3 } from '../../helpers/server.js';

const server = await serverForFile();

const create = async (email: string) =>
  (await server.req('POST', '/api/users', jsonBody({ email }))).json.id as string;

test('GET by id sends W/"<version>", one more after every write', async () => {
  const id = await create('etag1@example.com');
  const first = await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
  expect(first.headers.etag).toBe('W/"1"');
  const put = await server.req('PUT', `/api/users/${id}`, jsonBody({ profile: { position: 'A' } }));
  expect(put.headers.etag).toBe('W/"2"');
  const again = await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
  expect(again.headers.etag).toBe('W/"2"');
});

test('PUT with a stale If-Match is 412 and changes nothing; the current one applies', async () => {
  const id = await create('etag2@example.com');
  await server.req('PUT', `/api/users/${id}`, jsonBody({ profile: { position: 'A' } }));
  const stale = jsonBody({ profile: { position: 'B' } });
  const res = await server.req('PUT', `/api/users/${id}`, {
    ...stale,
    headers: { ...stale.headers, 'if-match': 'W/"1"' },
  });
  expect(res.status).toBe(412);
  expect(res.json).toMatchObject({
    statusCode: 412,
    identifier: 41200,
    type: 'PreconditionFailedException',
  });
  expect(res.json.message).toContain('version 2');
  const now = await server.req('GET', `/api/users/${id}`, { headers: { accept: V3 } });
  expect(now.json.profile.position).toBe('A');
  const ok = await server.req('PUT', `/api/users/${id}`, {
    ...stale,
    headers: { ...stale.headers, 'if-match': now.headers.etag! },
  });
  expect(ok.status).toBe(200);
  expect(ok.json.profile.position).toBe('B');
});

test('DELETE with a stale If-Match is 412 and the user stays', async () => {
  const id = await create('etag3@example.com');
  const res = await server.req('DELETE', `/api/users/${id}`, { headers: { 'if-match': '"7"' } });
  expect(res.status).toBe(412);
  expect((await server.req('GET', `/api/users/${id}`)).status).toBe(200);
});
