/**
 * `roster users avatar set|show|remove` in-process against a real server on a real port: media
 * really uploaded, the user really updated, old media really gone, nothing left on failure.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePhotos } from '../../../../../fixtures/avatars/make.mjs';
import { type CliServed, mediumNames, startCliServed } from '../../../../helpers/cli-run.js';
import { sql } from '../../../../helpers/database.js';

let srv: CliServed;
let paths: Awaited<ReturnType<typeof makePhotos>>['paths'];
let userId: string;
beforeAll(async () => {
  [srv, { paths }] = await Promise.all([startCliServed(), makePhotos()]);
  const r = await srv.run([
    ...['users', 'invite', '--email', 'ava@example.com', '--first-name', 'Ava'],
    ...['--last-name', 'Tar', '--external-id', 'E-ava', '--no-send-mail'],
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  userId = JSON.parse(r.stdout).id;
}, 60_000);
afterAll(async () => {
  await srv?.close();
});

const json = (text: string) => JSON.parse(text);
const mediaNames = () => mediumNames(srv);

describe('users avatar set', () => {
  let firstHash: string;

  it('uploads three images named by the photo hash and sets profile.avatar', async () => {
    const r = await srv.run(['users', 'avatar', 'set', 'E-ava', paths.phone]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = json(r.stdout);
    expect(out).toMatchObject({
      id: userId,
      result: 'set',
      hash: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    firstHash = out.hash;
    expect(await mediaNames()).toEqual(
      ['icon', 'original', 'thumb'].map((n) => `avatar.${firstHash}.${n}.jpg`),
    );
    const user = json((await srv.run(['users', 'show', userId])).stdout);
    for (const image of ['original', 'thumb', 'icon']) {
      expect(user.profile.avatar[image].url).toContain(`avatar.${firstHash}.${image}.jpg`);
    }
    expect(r.stderr).toContain(`${userId}: avatar set`);
  });

  it('the same photo again is a no-op: nothing uploaded, nothing deleted', async () => {
    const before = await mediaNames();
    // By email too, as `users show` takes it.
    const r = await srv.run(['users', 'avatar', 'set', 'ava@example.com', paths.phone]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ result: 'unchanged', hash: firstHash });
    expect(await mediaNames()).toEqual(before);
  });

  it('another photo replaces the avatar and deletes the old media afterwards', async () => {
    const r = await srv.run(['users', 'avatar', 'set', userId, paths.png16]);
    expect(r.exitCode, r.stderr).toBe(0);
    const { hash } = json(r.stdout);
    expect(hash).not.toBe(firstHash);
    expect(await mediaNames()).toEqual(
      ['icon', 'original', 'thumb'].map((n) => `avatar.${hash}.${n}.png`),
    );
  });

  it('a bad photo: exit 1 naming the file, the avatar and the media untouched', async () => {
    const before = await mediaNames();
    const userBefore = json((await srv.run(['users', 'show', userId])).stdout);
    const r = await srv.run(['users', 'avatar', 'set', userId, paths.bomb]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(paths.bomb);
    expect(r.stderr).toContain('megapixels');
    expect(await mediaNames()).toEqual(before);
    expect(json((await srv.run(['users', 'show', userId])).stdout).profile.avatar).toEqual(
      userBefore.profile.avatar,
    );
  });

  it('an update the service refuses: the uploaded images are deleted again (no orphans)', async () => {
    const before = await mediaNames();
    // May read users and write media, but not change users: the uploads pass, the update fails.
    const { token } = await srv.newToken('users:read,media:read,media:write');
    const r = await srv.run(['users', 'avatar', 'set', userId, paths.small], {
      env: { ROSTER_TOKEN: token, ROSTER_BASE_URL: srv.baseUrl, ROSTER_PROFILE: undefined },
    });
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain('PUT');
    expect(await mediaNames()).toEqual(before);
  });

  it('an unknown user: exit 4, nothing uploaded', async () => {
    const before = await mediaNames();
    const r = await srv.run(['users', 'avatar', 'set', 'E-nobody', paths.small]);
    expect(r.exitCode).toBe(4);
    expect(await mediaNames()).toEqual(before);
  });
});

describe('users avatar show', () => {
  it('lists the images with sizes, and --download saves them', async () => {
    const dir = mkdtempSync(join(srv.dataDir, 'download-'));
    const r = await srv.run(['users', 'avatar', 'show', userId, '--download', dir]);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = json(r.stdout);
    expect(rows.map((x: { image: string }) => x.image)).toEqual(['original', 'thumb', 'icon']);
    expect(readdirSync(dir).sort()).toEqual(
      ['icon', 'original', 'thumb'].map((n) => `${userId}.${n}.png`),
    );
    const thumb = await sharp(join(dir, `${userId}.thumb.png`)).metadata();
    expect([thumb.width, thumb.height]).toEqual([200, 200]);
    // Every image with its dimensions: the service answers them for the original only, its
    // media know them for the thumb and the icon too.
    const sizes = rows.map((x: { width?: number; height?: number }) => [x.width, x.height]);
    expect(sizes.slice(1)).toEqual([
      [200, 200],
      [48, 48],
    ]);
    // Again: refused, naming the flags this command has (it has no --to).
    const again = await srv.run(['users', 'avatar', 'show', userId, '--download', dir]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain(
      'already exists; pass --force to overwrite it, or --download another directory',
    );
  });
});

describe('media list --no-avatars', () => {
  it('leaves out the avatar images, and only them', async () => {
    const up = await srv.run(['media', 'upload', paths.small, '-o', 'json']);
    expect(up.exitCode, up.stderr).toBe(0);
    const [other] = json(up.stdout);
    const all = await srv.run(['media', 'list', '-o', 'json']);
    expect(json(all.stdout)).toHaveLength(4);
    const r = await srv.run(['media', 'list', '--no-avatars', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r.stdout).map((m: { id: string }) => m.id)).toEqual([other.id]);
    expect((await srv.run(['media', 'delete', other.id, '--yes'])).exitCode).toBe(0);
  });
});

describe('users avatar remove', () => {
  it('refuses without a terminal unless --yes', async () => {
    const r = await srv.run(['users', 'avatar', 'remove', userId]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect((await mediaNames()).length).toBe(3);
  });

  it('with --yes clears the avatar and deletes its media', async () => {
    const r = await srv.run(['users', 'avatar', 'remove', userId, '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ id: userId, result: 'removed', avatar: null });
    expect(await mediaNames()).toEqual([]);
    const again = await srv.run(['users', 'avatar', 'remove', userId, '--yes']);
    expect(json(again.stdout)).toMatchObject({ result: 'none' });
  });
});

describe('an avatar whose medium is gone (deleted by a path that missed the clearing)', () => {
  it('reads without it, and the same photo makes it whole again, leaving no orphans', async () => {
    const first = json((await srv.run(['users', 'avatar', 'set', userId, paths.phone])).stdout);
    const media = json((await srv.run(['media', 'list', '-o', 'json'])).stdout) as {
      id: string;
      fileName: string;
    }[];
    const original = media.find((m) => m.fileName.includes('.original.'))!;
    await sql(srv.store, 'DELETE FROM media WHERE id = ?', original.id);

    const show = await srv.run(['users', 'avatar', 'show', userId]);
    expect(show.exitCode, show.stderr).toBe(0);
    expect(json(show.stdout).map((r: { image: string }) => r.image)).toEqual(['thumb', 'icon']);

    const again = await srv.run(['users', 'avatar', 'set', userId, paths.phone]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(json(again.stdout)).toMatchObject({ result: 'set', hash: first.hash });
    const now = json((await srv.run(['media', 'list', '-o', 'json'])).stdout) as { id: string }[];
    expect(now).toHaveLength(3);
    // The old thumb and icon went with the old avatar: only the new three are left.
    for (const old of media) expect(now.map((m) => m.id)).not.toContain(old.id);
    const user = json((await srv.run(['users', 'show', userId])).stdout);
    expect(Object.keys(user.profile.avatar).sort()).toEqual(['icon', 'original', 'thumb']);
  });
});
