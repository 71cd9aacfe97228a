/** `roster users avatar sync DIR` in-process against a real server on a real port. */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePhotos } from '../../../../../fixtures/avatars/make.mjs';
import { type CliServed, startCliServed } from '../../../../helpers/cli-run.js';

let srv: CliServed;
let dir: string;
const ids: Record<string, string> = {};
beforeAll(async () => {
  const [served, { paths }] = await Promise.all([startCliServed(), makePhotos()]);
  srv = served;
  for (const [name, externalId] of [
    ['ann', 'E-1'],
    ['bob', 'E-2'],
    ['cat', 'E-3'],
    ['dan', 'E-4'],
  ] as const) {
    const r = await srv.run([
      ...['users', 'invite', '--email', `${name}@example.com`, '--first-name', name],
      ...['--last-name', 'Test', '--external-id', externalId, '--no-send-mail'],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    ids[name] = JSON.parse(r.stdout).id;
  }
  dir = mkdtempSync(join(srv.dataDir, 'photos-'));
  copyFileSync(paths.phone, join(dir, 'ANN@Example.com.JPG')); // by email, any case
  copyFileSync(paths.small, join(dir, 'e-2.png')); // by externalId
  copyFileSync(paths.truncated, join(dir, 'dan@example.com.jpeg')); // broken
  copyFileSync(paths.webp, join(dir, 'nobody.webp')); // matches no one
  copyFileSync(paths.text, join(dir, 'notes.txt')); // not a photo name: ignored
}, 60_000);
afterAll(async () => {
  await srv?.close();
});

async function mediaCount(): Promise<number> {
  const r = await srv.run(['media', 'list', '-o', 'json']);
  return JSON.parse(r.stdout).length;
}
const byUser = (stdout: string) =>
  Object.fromEntries(
    (JSON.parse(stdout) as { user: string; result: string }[]).map((r) => [r.user, r.result]),
  );

describe('users avatar sync', () => {
  it('--dry-run names what would change and changes nothing', async () => {
    const r = await srv.run(['users', 'avatar', 'sync', dir, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(byUser(r.stdout)).toEqual({
      [ids.ann!]: 'would set',
      [ids.bob!]: 'would set',
      [ids.dan!]: 'would set',
    });
    expect(await mediaCount()).toBe(0);
  });

  it('--dry-run reads each photo it would set: one that is no image fails as in the run', async () => {
    const { paths } = await makePhotos();
    const other = mkdtempSync(join(srv.dataDir, 'photos-dry-'));
    copyFileSync(paths.phone, join(other, 'ann@example.com.jpg'));
    copyFileSync(paths.text, join(other, 'e-2.jpg')); // a text file under a photo's name
    const r = await srv.run(['users', 'avatar', 'sync', other, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(5);
    expect(byUser(r.stdout)).toEqual({ [ids.ann!]: 'would set', [ids.bob!]: 'failed' });
    expect(r.stderr).toContain(`${join(other, 'e-2.jpg')}: is not an image Roster reads`);
    expect(await mediaCount()).toBe(0);
  });

  it('two photos under one name: named as such (none used), not as photos of nobody', async () => {
    const { paths } = await makePhotos();
    const twice = mkdtempSync(join(srv.dataDir, 'photos-twice-'));
    copyFileSync(paths.phone, join(twice, 'cat@example.com.jpg'));
    copyFileSync(paths.small, join(twice, 'cat@example.com.png'));
    const report = join(twice, 'report.json');
    const r = await srv.run(['users', 'avatar', 'sync', twice, '--dry-run', '--report', report]);
    expect(r.exitCode, r.stderr).toBe(0);
    const both = ['cat@example.com.jpg', 'cat@example.com.png'].map((n) => join(twice, n));
    expect(r.stderr).toContain(
      `photos with the same name, none used: ${both.join(', ')} (keep one)`,
    );
    expect(r.stderr).not.toContain('no user for photo');
    expect(r.stderr).toContain('0 photos matched nobody, 1 name with more than one photo');
    expect(JSON.parse(readFileSync(report, 'utf8')).ambiguousPhotos).toEqual([both]);
  });

  it('sets the matched avatars, names the broken photo and the unmatched one: exit 5', async () => {
    const report = join(srv.dataDir, 'report.json');
    const r = await srv.run(['users', 'avatar', 'sync', dir, '--report', report]);
    expect(r.exitCode, r.stderr).toBe(5);
    expect(byUser(r.stdout)).toEqual({
      [ids.ann!]: 'set',
      [ids.bob!]: 'set',
      [ids.dan!]: 'failed',
    });
    expect(r.stderr).toContain(`${join(dir, 'dan@example.com.jpeg')}: is damaged or truncated`);
    expect(r.stderr).toContain(`no user for photo ${join(dir, 'nobody.webp')}`);
    expect(await mediaCount()).toBe(6);
    const written = JSON.parse(readFileSync(report, 'utf8'));
    expect(written.unmatchedPhotos).toEqual([join(dir, 'nobody.webp')]);
    expect(written.usersWithoutPhoto.map((u: { user: string }) => u.user)).toContain(ids.cat);
    const ann = JSON.parse((await srv.run(['users', 'show', ids.ann!])).stdout);
    expect(ann.profile.avatar.thumb.url).toMatch(/avatar\.[0-9a-f]{16}\.thumb\.jpg/);
  });

  it('a re-run is a no-op: nothing processed, nothing uploaded', async () => {
    const r = await srv.run(['users', 'avatar', 'sync', dir, '--concurrency', '2']);
    expect(r.exitCode).toBe(5); // dan's photo is still broken
    expect(byUser(r.stdout)).toMatchObject({ [ids.ann!]: 'unchanged', [ids.bob!]: 'unchanged' });
    expect(await mediaCount()).toBe(6);
  });

  it('--photo-name #localpart# matches Cat.png', async () => {
    const other = join(dir, 'by-localpart');
    mkdirSync(other);
    copyFileSync(join(dir, 'e-2.png'), join(other, 'Cat.png'));
    const r = await srv.run(['users', 'avatar', 'sync', other, '--photo-name', '#localpart#']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(byUser(r.stdout)).toEqual({ [ids.cat!]: 'set' });
  });

  it('users with an avatar but no photo in the folder keep theirs: not counted as without a photo', async () => {
    // ann, bob and cat have avatars now; dan has none (his photo was broken).
    const other = join(dir, 'by-localpart');
    const report = join(srv.dataDir, 'report-keep.json');
    const r = await srv.run([
      ...['users', 'avatar', 'sync', other, '--photo-name', '#localpart#'],
      ...['--report', report],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      '1 user without a photo, 2 users with no photo in this folder (they keep their current one)',
    );
    const written = JSON.parse(readFileSync(report, 'utf8'));
    expect(written.usersWithoutPhoto.map((u: { user: string }) => u.user)).toEqual([ids.dan]);
    expect(written.usersKeepingPhoto.map((u: { user: string }) => u.user).sort()).toEqual(
      [ids.ann, ids.bob].sort(),
    );
  });

  it('an unknown placeholder is a usage error (exit 2)', async () => {
    const r = await srv.run(['users', 'avatar', 'sync', dir, '--photo-name', '#name#']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('#localpart#');
  });
});
