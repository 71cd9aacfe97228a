/**
 * The SCIM journey as an admin meets it, with processes: `roster tokens create --for scim`
 * prints the URL and token an identity provider is given, the provider creates a user there,
 * and `roster users list` shows that user.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Served, serve } from '../helpers/e2e.js';
import { scimUser } from '../helpers/scim.js';

let served: Served;
beforeAll(async () => {
  served = await serve();
});
afterAll(() => served.close());

test('tokens create --for scim, a SCIM POST with it, and users list shows the user', async () => {
  const made = await served.run(['tokens', 'create', '--for', 'scim', '--url', served.url]);
  expect(made.exitCode, made.stderr).toBe(0);
  const url = /^Tenant URL: +(\S+)$/m.exec(made.stdout)?.[1];
  const token = /^Secret Token: +(\S+)$/m.exec(made.stdout)?.[1];
  expect(url).toBe(`${served.url}/scim/v2`);

  const res = await request(`${url}/Users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify(scimUser('journey', { title: 'Provisioned' })),
  });
  expect(res.statusCode).toBe(201);
  const created = (await res.body.json()) as { id: string };

  const list = await served.run(['users', 'list', '-o', 'json']);
  expect(list.exitCode, list.stderr).toBe(0);
  const users = JSON.parse(list.stdout) as { id: string; externalId: string; profile: any }[];
  expect(users.find((u) => u.externalId === 'ext-journey')).toMatchObject({
    id: created.id,
    profile: { position: 'Provisioned' },
  });
});
