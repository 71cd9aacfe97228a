/**
 * A medium whose row this server has but whose file it has not (a replica with its own data
 * dir, a file lost from disk): the 404 says so and names the shared bucket, not "deleted or
 * never existed" (#44 rough edge). In-process against a real server.
 */
import { expect, test } from 'vitest';
import { serverForFile } from '../../helpers/server.js';
import { upload } from '../media/media-helpers.js';

const s = await serverForFile();

const path = (url: string) => new URL(url).pathname + new URL(url).search;

test('a row without its file: "this server has no copy of it", with --blobs named', async () => {
  const up = await upload(s, Buffer.from('hello'), 'hello.txt');
  expect(up.status).toBe(200);
  const medium = up.json as { id: string; resourceInfo: { url: string } };
  await s.store.blobs.delete(medium.id);
  const r = await s.req('GET', path(medium.resourceInfo.url), { token: null });
  expect(r.status).toBe(404);
  const message = (r.json as { message: string }).message;
  expect(message).toContain(`medium ${medium.id} exists, but this server has no copy of its file`);
  expect(message).toContain('--blobs');
  expect(message).not.toContain('never existed');
});

test('no such medium: still "deleted or never existed"', async () => {
  const r = await s.req('GET', '/cdn/x/y/6b0000000000000000000000/none.txt');
  expect(r.status).toBe(404);
  expect((r.json as { message: string }).message).toContain('deleted or never existed');
});
