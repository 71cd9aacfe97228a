/**
 * `roster users import FILE --photos DIR` in-process against a real server on a real port: the
 * rows' users get their avatars as `avatar sync` sets them; --dry-run, --resume and saved plans
 * keep the photos.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePhotos } from '../../../../../fixtures/avatars/make.mjs';
import { type CliServed, mediumNames, startCliServed } from '../../../../helpers/cli-run.js';

let srv: CliServed;
let paths: Awaited<ReturnType<typeof makePhotos>>['paths'];
let photos: string;
let csv: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  [srv, { paths }] = await Promise.all([startCliServed(), makePhotos()]);
  for (const name of ['ann', 'cat', 'dan', 'zed']) {
    const r = await srv.run([
      ...['users', 'invite', '--email', `${name}@example.com`, '--first-name', name],
      ...['--last-name', 'Test', '--external-id', `E-${name}`, '--no-send-mail'],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    ids[name] = JSON.parse(r.stdout).id;
  }
  photos = mkdtempSync(join(srv.dataDir, 'photos-'));
  copyFileSync(paths.phone, join(photos, 'Ann@Example.com.jpg')); // an existing user, by email
  copyFileSync(paths.small, join(photos, 'e-bob.png')); // a user the import creates, by externalId
  copyFileSync(paths.truncated, join(photos, 'dan@example.com.jpg')); // broken
  copyFileSync(paths.webp, join(photos, 'zed@example.com.webp')); // a user the file does not name
  csv = join(srv.dataDir, 'people.csv');
  writeFileSync(
    csv,
    [
      'externalId,email,firstName,lastName',
      'E-ann,ann@example.com,ann,Test',
      'E-bob,bob@example.com,bob,Test',
      'E-cat,cat@example.com,Cathy,Test', // updated, no photo
      'E-dan,dan@example.com,dan,Test',
    ].join('\n'),
  );
}, 60_000);
afterAll(async () => {
  await srv?.close();
});

const json = (text: string) => JSON.parse(text);
const mediaNames = () => mediumNames(srv);
async function avatarOf(id: string) {
  return json((await srv.run(['users', 'show', id])).stdout).profile.avatar;
}

describe('users import --photos', () => {
  it('--dry-run names the avatars that would change, the new user’s too, and sends nothing', async () => {
    const r = await srv.run(['users', 'import', csv, '--photos', photos, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`would set ${ids.ann} ← ${join(photos, 'Ann@Example.com.jpg')}`);
    expect(r.stderr).toContain(`would set bob@example.com ← ${join(photos, 'e-bob.png')}`);
    expect(r.stderr).toContain(
      `no user of the file for photo ${join(photos, 'zed@example.com.webp')}`,
    );
    expect(r.stderr).toContain('photos: 3 would be set, 0 unchanged, 0 failed');
    expect(await mediaNames()).toEqual([]);
    const list = await srv.run(['users', 'list', '--all', '-o', 'json']);
    expect(json(list.stdout).map((u: { externalId: string }) => u.externalId)).not.toContain(
      'E-bob',
    );
  });

  it('imports, then sets the rows’ avatars: the broken photo named, exit 5; zed untouched', async () => {
    const report = join(srv.dataDir, 'run.csv');
    const r = await srv.run(['users', 'import', csv, '--photos', photos, '--report', report]);
    expect(r.exitCode, r.stderr).toBe(5);
    expect(r.stderr).toContain(`${join(photos, 'dan@example.com.jpg')}: is damaged or truncated`);
    expect(r.stderr).toContain('photos: 2 set, 0 unchanged, 1 failed');
    expect(r.stderr).toContain('1 of 3 photos failed');
    expect(json(r.stdout)).toMatchObject({ created: 1, updated: 1, failed: 0 });
    expect((await mediaNames()).length).toBe(6);
    expect((await avatarOf(ids.ann!)).thumb.url).toMatch(/avatar\.[0-9a-f]{16}\.thumb\.jpg/);
    expect(await avatarOf(ids.zed!)).toBeFalsy();
    expect(await avatarOf(ids.cat!)).toBeFalsy();
    // The photos' report beside the import's, as avatar sync --report writes it.
    const photoReport = json(readFileSync(`${report}.photos.json`, 'utf8'));
    expect(photoReport.unmatchedPhotos).toEqual([join(photos, 'zed@example.com.webp')]);
    expect(photoReport.usersWithoutPhoto.map((u: { user: string }) => u.user)).toEqual([ids.cat]);
    expect(photoReport.results).toHaveLength(3);
    // The run record keeps the folder, absolute, for --resume.
    const record = json(readFileSync(`${report}.run.json`, 'utf8'));
    expect(record.options).toMatchObject({ photos });
  });

  it('--resume keeps --photos: the photos come out unchanged, nothing uploaded again', async () => {
    const report = join(srv.dataDir, 'run.csv');
    const before = await mediaNames();
    const r = await srv.run(['users', 'import', '--resume', report]);
    expect(r.exitCode, r.stderr).toBe(5); // dan's photo is still broken
    expect(r.stderr).toContain('photos: 0 set, 2 unchanged, 1 failed');
    expect(await mediaNames()).toEqual(before);
  });

  it('--resume with another folder is refused (exit 2)', async () => {
    const other = mkdtempSync(join(srv.dataDir, 'other-'));
    const r = await srv.run([
      ...['users', 'import', '--resume', join(srv.dataDir, 'run.csv')],
      ...['--photos', other],
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`--photos ${other}`);
  });

  it('a saved plan keeps --photos and --photo-name: --plan sets the avatar', async () => {
    const dir = join(srv.dataDir, 'by-localpart');
    mkdirSync(dir);
    copyFileSync(paths.png16, join(dir, 'Cat.png'));
    const plan = join(srv.dataDir, 'plan.json');
    const dry = await srv.run([
      ...['users', 'import', csv, '--dry-run', '--save-plan', plan],
      ...['--photos', dir, '--photo-name', '#localpart#'],
    ]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`would set ${ids.cat} ← ${join(dir, 'Cat.png')}`);
    expect(json(readFileSync(plan, 'utf8')).options).toMatchObject({
      photos: dir,
      photoName: ['#localpart#'],
    });
    const r = await srv.run(['users', 'import', '--plan', plan]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('photos: 1 set, 0 unchanged, 0 failed');
    expect((await avatarOf(ids.cat!)).thumb.url).toMatch(/avatar\.[0-9a-f]{16}\.thumb\.png/);
  });

  it('the export has an avatar column, and importing it again changes nothing (one notice)', async () => {
    const exported = join(srv.dataDir, 'export.csv');
    const e = await srv.run(['users', 'export', '--to', exported]);
    expect(e.exitCode, e.stderr).toBe(0);
    const [header, ...lines] = readFileSync(exported, 'utf8').trim().split('\n');
    const at = header!.split(',').indexOf('avatar');
    expect(at).toBeGreaterThan(0);
    const ann = lines.find((l) => l.startsWith('E-ann,'))!.split(',');
    expect(ann[at]).toBe((await avatarOf(ids.ann!)).original.url);
    expect(ann[at]).toMatch(/avatar\.[0-9a-f]{16}\.original\.jpg/);

    const again = await srv.run(['users', 'import', exported]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(json(again.stdout)).toMatchObject({ created: 0, updated: 0, failed: 0 });
    const notices = again.stderr.split('\n').filter((l) => l.includes('read-only'));
    expect(notices).toEqual([
      expect.stringContaining(
        "column 'avatar' is read-only and ignored: avatars are made from photos",
      ),
    ]);

    // Another value in the column (a URL, or cleared) is ignored too: the avatar stays.
    const before = await avatarOf(ids.ann!);
    const edited = join(srv.dataDir, 'edited.csv');
    const changed = lines.map((l) => {
      const cells = l.split(',');
      if (cells[0] === 'E-ann') cells[at] = 'https://example.com/me.jpg';
      if (cells[0] === 'E-bob') cells[at] = '';
      return cells.join(',');
    });
    writeFileSync(edited, [header, ...changed].join('\n'));
    const r = await srv.run(['users', 'import', edited, '--empty-clears']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ created: 0, updated: 0, failed: 0 });
    expect((await avatarOf(ids.ann!)).original.url.split('?')[0]).toBe(
      before.original.url.split('?')[0],
    );
    expect(
      await avatarOf(json((await srv.run(['users', 'show', 'E-bob'])).stdout).id),
    ).toBeTruthy();
  });

  it('a token that may not upload media: the rows are in, the photos stop the run with how to finish it', async () => {
    const { token } = await srv.newToken('users:read,users:write,media:read');
    const dir = mkdtempSync(join(srv.dataDir, 'denied-'));
    copyFileSync(paths.webp, join(dir, 'E-eve.webp'));
    const file = join(srv.dataDir, 'eve.csv');
    writeFileSync(file, 'externalId,email,firstName\nE-eve,eve@example.com,Eve\n');
    const report = join(srv.dataDir, 'eve-run.csv');
    const r = await srv.run(['users', 'import', file, '--photos', dir, '--report', report], {
      env: { ROSTER_TOKEN: token, ROSTER_BASE_URL: srv.baseUrl, ROSTER_PROFILE: undefined },
    });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(`continue with: roster users import --resume ${report}`);
    const eve = json((await srv.run(['users', 'show', 'E-eve'])).stdout);
    expect(eve.profile.avatar ?? null).toBeNull();
    // With a token that may: --resume finishes the photos.
    const done = await srv.run(['users', 'import', '--resume', report]);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).toContain('photos: 1 set, 0 unchanged, 0 failed');
  });

  it('--photo-name without --photos, or with an unknown placeholder: exit 2, nothing sent', async () => {
    const alone = await srv.run(['users', 'import', csv, '--photo-name', '#email#']);
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toContain('--photo-name works with --photos only');
    const bad = await srv.run([
      ...['users', 'import', csv, '--photos', photos, '--photo-name', '#name#'],
    ]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('#localpart#');
  });
});
