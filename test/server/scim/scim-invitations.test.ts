/** SCIM-created users get no invitation mail unless their tenant says so. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { scimClient, scimUser } from '../../helpers/scim.js';
import { serverForFile, serverForTest } from '../../helpers/server.js';

const server = await serverForFile();

test('off by default; on once the tenant turns --scim-invitations on', async () => {
  const scim = scimClient(server);
  const outbox = join(server.dataDir, 'outbox');
  const mails = () =>
    existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : [];
  const settled = async () => (await server.store.outbox.pending()) === 0;
  await eventually(settled);
  const before = mails().length;
  expect((await scim('POST', '/Users', scimUser('quiet'))).status).toBe(201);
  expect(await server.store.tenants.setScimInvitations('*', true)).toBe(true);
  expect((await scim('POST', '/Users', scimUser('invited'))).status).toBe(201);
  // One mail, the second user's: the first was created while the setting was off.
  await eventually(async () => (await settled()) && mails().length === before + 1);
  const all = mails().map((f) => readFileSync(join(outbox, f), 'utf8'));
  expect(all.some((m) => m.includes('To: userinvited@example.com'))).toBe(true);
  expect(all.some((m) => m.includes('userquiet@example.com'))).toBe(false);
});

test('active: false on a pending user drops the invitation not yet delivered', async () => {
  // A mail server that is not there: the invitation waits in the outbox for its next attempt.
  const held = await serverForTest({ smtpUrl: 'smtp://127.0.0.1:9', mailRetryBaseMs: 3_600_000 });
  await held.store.tenants.setScimInvitations('*', true);
  const scim = scimClient(held);
  const created = await scim('POST', '/Users', scimUser('leaver'));
  expect(created.status).toBe(201);
  await eventually(async () => (await held.store.outbox.pending()) === 1);
  const off = await scim('PATCH', `/Users/${created.json.id}`, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    Operations: [{ op: 'replace', path: 'active', value: false }],
  });
  expect(off.json.active).toBe(false);
  expect(await held.store.outbox.pending()).toBe(0);
});
