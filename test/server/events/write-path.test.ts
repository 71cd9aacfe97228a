/**
 * One write path: every route that can write (each non-GET method on the app's routers) is
 * driven once, and each must leave an event. A route added later that writes without recording
 * one fails here until it does (or, if it only reads, until it is named below with why).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { scimClient, scimUser } from '../../helpers/scim.js';
import { jsonBody, startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** Non-GET routes that write nothing, and why. */
const READS = new Set([
  // A SCIM search sent as a POST (RFC 7644 §3.4.3): a read.
  'POST /scim/v2/Users/.search',
  // Answer every method with 404 / 501: SCIM Groups, /Me and /Bulk are not offered.
  ...['POST', 'PUT', 'PATCH', 'DELETE'].flatMap((m) => [
    `${m} /scim/v2/Groups{/*rest}`,
    `${m} /scim/v2/Me{/*rest}`,
    `${m} /scim/v2/Bulk{/*rest}`,
  ]),
  // Deliveries, not changes: a test delivery and a retry touch no endpoint, user, medium or
  // token (webhook.test is sent, never logged); test/server/webhooks covers what they do.
  'POST /api/webhooks/:webhookId/test',
  'POST /api/webhooks/:webhookId/deliveries/:deliveryId/retry',
]);
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

const upload = () => {
  const boundary = 'wp';
  return server.req('POST', '/api/media', {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="w.txt"\r\nContent-Type: text/plain\r\n\r\nhi\r\n--${boundary}--\r\n`,
    ),
  });
};
const newUser = async (n: string) =>
  (await server.req('POST', '/api/users', jsonBody({ email: `${n}@example.com` }))).json.id;

const addWebhook = () =>
  server.req('POST', '/api/webhooks', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://hooks.example.com/wp', types: ['user.*'] }),
  });
const newWebhook = async () => (await addWebhook()).json.id;

type Drive = { prepare?: () => Promise<string>; run: (id: string) => Promise<{ status: number }> };
const scim = () => scimClient(server);
const scimId = async (n: string) => (await scim()('POST', '/Users', scimUser(n))).json.id;

/** One request per write route, with what it needs made first (whose events come before). */
const DRIVE: Record<string, Drive> = {
  'POST /api/users': {
    run: () => server.req('POST', '/api/users', jsonBody({ email: 'wp@example.com' })),
  },
  'PUT /api/users/:userId': {
    prepare: () => newUser('wp-put'),
    run: (id) => server.req('PUT', `/api/users/${id}`, jsonBody({ profile: { position: 'X' } })),
  },
  'DELETE /api/users/:userId': {
    prepare: () => newUser('wp-del'),
    run: (id) => server.req('DELETE', `/api/users/${id}`),
  },
  'POST /api/media': { run: upload },
  'DELETE /api/media/:mediumID': {
    prepare: async () => (await upload()).json.id,
    run: (id) => server.req('DELETE', `/api/media/${id}`),
  },
  'POST /api/webhooks': { run: addWebhook },
  'PATCH /api/webhooks/:webhookId': {
    prepare: newWebhook,
    run: (id) =>
      server.req('PATCH', `/api/webhooks/${id}`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ description: 'changed' }),
      }),
  },
  'DELETE /api/webhooks/:webhookId': {
    prepare: newWebhook,
    run: (id) => server.req('DELETE', `/api/webhooks/${id}`),
  },
  'POST /api/webhooks/:webhookId/rotate-secret': {
    prepare: newWebhook,
    run: (id) => server.req('POST', `/api/webhooks/${id}/rotate-secret`),
  },
  'POST /scim/v2/Users': { run: () => scim()('POST', '/Users', scimUser('wp1')) },
  'PUT /scim/v2/Users/:id': {
    prepare: () => scimId('wp2'),
    run: (id) => scim()('PUT', `/Users/${id}`, scimUser('wp2', { title: 'Boss' })),
  },
  'PATCH /scim/v2/Users/:id': {
    prepare: () => scimId('wp3'),
    run: (id) =>
      scim()('PATCH', `/Users/${id}`, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'title', value: 'Chief' }],
      }),
  },
  'DELETE /scim/v2/Users/:id': {
    prepare: () => scimId('wp4'),
    run: (id) => scim()('DELETE', `/Users/${id}`),
  },
};

const latest = async () => {
  let page = await server.req('GET', '/api/events?limit=1000');
  let last = 0;
  while (page.json.data.length > 0) {
    last = page.json.data.at(-1).sequence;
    page = await server.req('GET', `/api/events?limit=1000&after=${page.json.next}`);
  }
  return last;
};

test('every write route records an event for its change', async () => {
  const routes = server
    .app!.routers.flatMap((r) => r.stack)
    .flatMap((layer) =>
      layer.methods
        .filter((m) => WRITE_METHODS.includes(m))
        .map((m) => `${m} ${String(layer.path)}`),
    )
    .filter((r) => !READS.has(r));
  expect(routes.length).toBeGreaterThan(5);
  for (const route of routes) {
    const drive = DRIVE[route];
    expect(drive, `${route} writes? drive it here, or name it in READS with why`).toBeDefined();
    const id = (await drive!.prepare?.()) ?? '';
    const before = await latest();
    const res = await drive!.run(id);
    expect(res.status, route).toBeLessThan(300);
    expect(await latest(), `${route} wrote no event`).toBeGreaterThan(before);
  }
});
