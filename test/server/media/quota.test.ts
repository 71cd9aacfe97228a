/** A tenant's storage quota (in the database, or serve's --quota default): 507 with the figures. */
import { randomBytes } from 'node:crypto';
import { expect, test } from 'vitest';
import { serverForTest } from '../../helpers/server.js';
import { blobKeys, eventually, mediaRows, tempFiles, upload } from './media-helpers.js';

test("an upload past the tenant's quota is 507 naming used, quota and size; nothing is kept", async () => {
  const s = await serverForTest();
  await s.store.tenants.setQuota('*', 10_000);
  const first = await upload(s, randomBytes(6000), 'a.bin');
  expect(first.status).toBe(200);
  const second = await upload(s, randomBytes(6000), 'b.bin');
  expect(second.status).toBe(507);
  expect(second.json).toMatchObject({ identifier: 50700, type: 'InsufficientStorageException' });
  expect(second.json.message).toBe(
    "tenant '*' would exceed its storage quota: 6000 bytes used of 10000 (media files and their previews count), this upload is 6000 bytes with its preview; delete media or raise the quota (roster tenants quota)",
  );
  expect(await mediaRows(s)).toBe(1);
  await eventually(async () => (await tempFiles(s)).length === 0);
  expect(await blobKeys(s)).toEqual([first.json.id]);

  expect((await s.req('DELETE', `/api/media/${first.json.id}`)).status).toBe(204);
  expect((await upload(s, randomBytes(6000), 'c.bin')).status).toBe(200);
});

test("serve's default quota applies to tenants without their own; a tenant's own wins", async () => {
  const s = await serverForTest({ quotaBytes: 5000 });
  expect((await upload(s, randomBytes(6000), 'big.bin')).status).toBe(507);
  await s.store.tenants.setQuota('*', 100_000);
  expect((await upload(s, randomBytes(6000), 'big.bin')).status).toBe(200);
});

test("a quota counts only its own tenant's media", async () => {
  const s = await serverForTest();
  const other = await s.token({ tenant: 'other.example.com' });
  await s.store.tenants.setQuota('other.example.com', 1000);
  expect((await upload(s, randomBytes(5000), 'mine.bin')).status).toBe(200);
  const theirs = await upload(s, randomBytes(500), 'theirs.bin', {
    token: other,
    host: 'other.example.com',
  });
  expect(theirs.status).toBe(200);
  const over = await upload(s, randomBytes(600), 'over.bin', {
    token: other,
    host: 'other.example.com',
  });
  expect(over.status).toBe(507);
  expect(over.json.message).toContain('500 bytes used of 1000');
});

test('a tenant at its quota is refused before the body is read', async () => {
  const s = await serverForTest();
  await s.store.tenants.setQuota('*', 4000);
  expect((await upload(s, randomBytes(4000), 'fill.bin')).status).toBe(200);
  const r = await upload(s, randomBytes(10), 'more.bin');
  expect(r.status).toBe(507);
  expect(r.json.message).toBe(
    "tenant '*' has used its storage quota: 4000 bytes used of 4000 (media files and their previews count); delete media or raise the quota (roster tenants quota)",
  );
});
