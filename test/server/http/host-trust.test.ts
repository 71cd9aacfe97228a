/** Nothing a Host header says ends up in an absolute URL of a named tenant, or in a cacheable answer. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { jsonBody, serverForTest, startServer, type TestServer } from '../../helpers/server.js';
import { upload } from '../media/media-helpers.js';

let s: TestServer;
let acme: string;
beforeAll(async () => {
  s = await startServer();
  await s.store.tenants.add('acme.example.com');
  acme = await s.token({ tenant: 'acme.example.com' });
});
afterAll(() => s.close());

const port = () => new URL(s.url).port;
const asAcme = (host: string) => ({ token: acme, headers: { host, ...jsonBody({}).headers } });

test('a named tenant builds Location from its own host name, not the Host header', async () => {
  const r = await s.req('POST', '/api/users', {
    ...asAcme(`ACME.example.com:${port()}`),
    body: JSON.stringify({ email: 'loc@example.com' }),
  });
  expect(r.status).toBe(201);
  expect(r.headers.location).toBe(`http://acme.example.com:${port()}/api/users/${r.json.id}`);
});

test('the default tenant may use the Host it was asked by', async () => {
  const r = await s.req('POST', '/api/users', {
    ...jsonBody({ email: 'dflt@example.com' }),
    headers: { ...jsonBody({}).headers, host: `evil.example:${port()}` },
  });
  expect(r.headers.location).toBe(`http://evil.example:${port()}/api/users/${r.json.id}`);
});

test("a tenant's public URL is used for Location and media URLs", async () => {
  await s.store.tenants.setPublicUrl('acme.example.com', 'https://intranet.acme.example/');
  try {
    const r = await s.req('POST', '/api/users', {
      ...asAcme('acme.example.com'),
      body: JSON.stringify({ email: 'pub@example.com' }),
    });
    expect(r.headers.location).toBe(`https://intranet.acme.example/api/users/${r.json.id}`);
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==',
      'base64',
    );
    const m = await upload(s, png, 'dot.png', { token: acme, host: 'acme.example.com' });
    expect(m.status).toBe(200);
    expect(m.json.resourceInfo.url).toMatch(
      /^https:\/\/intranet\.acme\.example\/cdn\/acme\.example\.com\/main\//,
    );
  } finally {
    await s.store.tenants.setPublicUrl('acme.example.com', null);
  }
});

test('the OpenAPI document names a relative server, whatever the Host', async () => {
  const r = await s.req('GET', '/api/openapi.json', { headers: { host: 'evil.example' } });
  expect(r.json.servers).toEqual([{ url: '/api' }]);
  expect(r.text).not.toContain('evil.example');
});

test("serve's --public-url is the default tenant's origin", async () => {
  const pub = await serverForTest({ publicUrl: 'https://roster.example' });
  const r = await pub.req('POST', '/api/users', {
    ...jsonBody({ email: 'p@example.com' }),
    headers: { ...jsonBody({}).headers, host: 'evil.example' },
  });
  expect(r.headers.location).toBe(`https://roster.example/api/users/${r.json.id}`);
});
