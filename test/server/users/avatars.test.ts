/**
 * Avatars on `serve` over real HTTP: only this branch's media, stored as medium ids, answered
 * with fresh signed URLs and the media's facts; media deletes clear images, user deletes take
 * the avatar's media along.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from '../../helpers/database.js';
import { validating } from '../../helpers/openapi-validation.js';
import { jsonBody, startServer, type TestServer, USERS_V2, V3 } from '../../helpers/server.js';
import { upload } from '../media/media-helpers.js';

let s: TestServer;
let userId: string;
const media: Record<string, { id: string; url: string }> = {};
beforeAll(async () => {
  s = validating(await startServer());
  const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#c33' } })
    .jpeg()
    .toBuffer();
  for (const name of ['original', 'thumb', 'icon']) {
    const r = await upload(s, png, `avatar.0123456789abcdef.${name}.jpg`, { type: 'image' });
    expect(r.status).toBe(200);
    media[name] = { id: r.json.id, url: r.json.resourceInfo.url };
  }
  const u = await s.req(
    'POST',
    '/api/users',
    jsonBody({ email: 'ava@example.com', sendMail: false }, V3),
  );
  userId = u.json.id;
});
afterAll(() => s?.close());

const put = (avatar: unknown) =>
  s.req('PUT', `/api/users/${userId}`, jsonBody({ profile: { avatar } }, V3));
const avatarOf = async (id = userId) =>
  (await s.req('GET', `/api/users/${id}`, { headers: { accept: V3 } })).json.profile.avatar;
const urls = () => ({
  original: { url: media.original!.url },
  thumb: { url: media.thumb!.url },
  icon: { url: media.icon!.url },
});

describe('an avatar write', () => {
  test("takes the branch's media URLs, stores the medium ids, answers the media's facts", async () => {
    const r = await put(urls());
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.profile.avatar.original).toEqual({
      url: expect.stringContaining(`/${media.original!.id}/`),
      width: 300,
      height: 200,
      size: expect.any(Number),
      format: 'jpg',
      mimeType: 'image/jpeg',
    });
    expect(r.json.profile.avatar.thumb).toEqual({
      url: expect.stringMatching(/signature=/),
      format: 'jpg',
      mimeType: 'image/jpeg',
    });
    const [row] = await sql<{ avatar: string }>(
      s.store,
      'SELECT avatar FROM users WHERE id = ?',
      userId,
    );
    expect(JSON.parse(row!.avatar)).toEqual({
      original: { url: `medium:${media.original!.id}` },
      thumb: { url: `medium:${media.thumb!.id}` },
      icon: { url: `medium:${media.icon!.id}` },
    });
  });

  test('a read answers URLs that fetch the image', async () => {
    const avatar = await avatarOf();
    const res = await fetch(avatar.thumb.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
  });

  const refusedAt = async (image: string, url: string) => {
    const r = await put({ ...urls(), [image]: { url } });
    expect(r.status).toBe(400);
    expect(r.json.details).toEqual([
      {
        field: `profile.avatar.${image}.url`,
        message: expect.stringContaining('medium of this branch'),
      },
    ]);
  };

  test('a foreign URL is a 400 naming profile.avatar.thumb.url (and is never fetched)', () =>
    refusedAt('thumb', 'https://img.example/a.jpg'));

  test('the URL of a medium that does not exist is a 400', () =>
    refusedAt('thumb', media.thumb!.url.replace(media.thumb!.id, 'f'.repeat(24))));

  test("a medium's URL with another file name is a 400", () =>
    refusedAt('icon', media.icon!.url.replace('.icon.jpg', '.x.jpg')));
});

describe('deletes', () => {
  test('deleting a medium clears the image that used it', async () => {
    expect((await put(urls())).status).toBe(200);
    expect((await s.req('DELETE', `/api/media/${media.icon!.id}`)).status).toBe(204);
    const avatar = await avatarOf();
    expect(avatar.icon).toBeUndefined();
    expect(avatar.thumb.url).toContain(media.thumb!.id);
  });

  test("deleting a user deletes its avatar's media", async () => {
    expect((await s.req('DELETE', `/api/users/${userId}`)).status).toBe(202);
    for (const name of ['original', 'thumb']) {
      expect((await s.req('GET', `/api/media/${media[name]!.id}`)).status).toBe(404);
    }
  });
});

describe('a medium deleted by a path that missed the clearing (its id stays in the avatar)', () => {
  test('reads, lists, updates and deletes of the user still work; the image is left out', async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3c3' } })
      .jpeg()
      .toBuffer();
    const own: Record<string, { id: string; url: string }> = {};
    for (const name of ['original', 'thumb', 'icon']) {
      const r = await upload(s, png, `avatar.fedcba9876543210.${name}.jpg`, { type: 'image' });
      own[name] = { id: r.json.id, url: r.json.resourceInfo.url };
    }
    const u = await s.req('POST', '/api/users', jsonBody({ email: 'stale@example.com' }, V3));
    const id = u.json.id;
    const avatar = Object.fromEntries(Object.entries(own).map(([n, m]) => [n, { url: m.url }]));
    const set = await s.req('PUT', `/api/users/${id}`, jsonBody({ profile: { avatar } }, V3));
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    // As the start-up sweep removes a row whose file vanished: the row only, no user touched.
    await sql(s.store, 'DELETE FROM media WHERE id = ?', own.original!.id);
    const [stored] = await sql<{ avatar: string }>(
      s.store,
      'SELECT avatar FROM users WHERE id = ?',
      id,
    );
    expect(JSON.parse(stored!.avatar).original).toEqual({ url: `medium:${own.original!.id}` });

    const read = await avatarOf(id);
    expect(read.original).toBeUndefined();
    expect(read.thumb.url).toContain(own.thumb!.id);
    const list = await s.req('GET', '/api/users?status=activated,pending', {
      headers: { accept: USERS_V2 },
    });
    expect(list.status, JSON.stringify(list.json)).toBe(200);
    const listed = list.json.data.find((x: { id: string }) => x.id === id);
    expect(listed.profile.avatar.original).toBeUndefined();
    expect(listed.profile.avatar.thumb.url).toContain(own.thumb!.id);
    const renamed = await s.req(
      'PUT',
      `/api/users/${id}`,
      jsonBody({ profile: { firstName: 'Stale' } }, V3),
    );
    expect(renamed.status, JSON.stringify(renamed.json)).toBe(200);
    expect(renamed.json.profile.avatar.icon.url).toContain(own.icon!.id);

    // Every image gone: no avatar at all, not an empty one.
    await sql(s.store, 'DELETE FROM media WHERE id IN (?, ?)', own.thumb!.id, own.icon!.id);
    expect(await avatarOf(id)).toBeNull();
    expect((await s.req('DELETE', `/api/users/${id}`)).status).toBe(202);
  });
});
