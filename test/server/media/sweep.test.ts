/** The start-up sweep: what a crash can leave behind is cleaned before the server listens. */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { createApp } from '../../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../../src/server/config.js';
import { openTestStore, sql } from '../../helpers/database.js';
import { scratch } from '../../helpers/scratch.js';
import { requester } from '../../helpers/server.js';
import { blobKeys, fixtures, read, tempFiles, uploadBody } from './media-helpers.js';

const dirs = scratch();

const dataDir = dirs.temp('roster-sweep-');
afterAll(dirs.cleanup);

test('temp files, files without a row and rows without a file are swept at start-up', async () => {
  const png = read((await fixtures()).png);
  const { store, dispose } = await openTestStore(dataDir);
  const token = (await store.bootstrap())!.adminToken;
  const logs: string[] = [];
  const config = { dataDir, vendor: 'service', maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES };
  const first = await createApp({ store, config, log: (l) => logs.push(l) });
  const req = requester((await first.listen(0)).url, token);
  const post = (name: string) => {
    const { body, contentType } = uploadBody(png, name);
    return req('POST', '/api/media', { headers: { 'content-type': contentType }, body });
  };
  const lost = (await post('lost.png')).json;
  const kept = (await post('kept.png')).json;
  const whole = (await post('whole.png')).json;
  await first.close();

  // What a crash can leave: a half-written upload, a file renamed into place whose row never
  // committed, and (after a disk problem or a hand-made mess) rows whose files are gone.
  const temp = dirname(store.blobs.tempPath());
  writeFileSync(join(temp, 'half-written.tmp'), 'partial');
  const orphan = store.blobs.tempPath();
  writeFileSync(orphan, 'no row names me');
  await store.blobs.put('ffffffffffffffffffffffff', orphan);
  const row = async (id: string) =>
    (await sql<Record<string, string>>(store, 'SELECT * FROM media WHERE id = ?', id))[0];
  // (The lost medium's preview then has no row either: it goes too.)
  await store.blobs.delete((await row(lost.id))!.blob_key!);
  await store.blobs.delete((await row(kept.id))!.preview_key!);

  const second = await createApp({ store, config, log: (l) => logs.push(l) });
  const again = requester((await second.listen(0)).url, token);
  try {
    expect(await tempFiles({ store })).toEqual([]);
    expect(await row(lost.id)).toBeUndefined();
    expect((await row(kept.id))!.preview_key).toBeNull();
    const remaining: string[] = [];
    for (const m of [kept, whole]) {
      const r = (await row(m.id))!;
      remaining.push(...[r.blob_key, r.preview_key].filter((k): k is string => Boolean(k)));
    }
    expect(await blobKeys({ store })).toEqual(remaining.sort());
    const keptNow = await again('GET', `/api/media/${kept.id}`);
    expect(keptNow.json).not.toHaveProperty('transformations');
    const wholeNow = (await again('GET', `/api/media/${whole.id}`)).json;
    expect(wholeNow.transformations.t_preview.resourceInfo).toEqual({
      ...whole.transformations.t_preview.resourceInfo,
      url: expect.any(String),
    });
    expect(logs.some((l) => /sweep: removed 1 temp file\(s\), 2 file\(s\) without/.test(l))).toBe(
      true,
    );
  } finally {
    await second.close();
    await dispose();
  }
});

/** A data dir with `n` media uploaded through a real app; returns what the tests need. */
async function withMedia(n: number) {
  const dir = dirs.temp('roster-sweep-guard-');
  const png = read((await fixtures()).png);
  const { store, dispose } = await openTestStore(dir);
  const token = (await store.bootstrap())!.adminToken;
  const config = { dataDir: dir, vendor: 'service', maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES };
  const app = await createApp({ store, config });
  const req = requester((await app.listen(0)).url, token);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { body, contentType } = uploadBody(png, `p${i}.png`);
    ids.push(
      (await req('POST', '/api/media', { headers: { 'content-type': contentType }, body })).json.id,
    );
  }
  await app.close();
  const rows = async () =>
    Number((await sql<{ n: number }>(store, 'SELECT count(*) AS n FROM media'))[0]!.n);
  const start = async (extra: Partial<typeof config & { forceSweep: boolean }> = {}) => {
    const logs: string[] = [];
    const again = await createApp({
      store,
      config: { ...config, ...extra },
      log: (l) => logs.push(l),
    });
    return { app: again, logs, listening: again.listen(0) };
  };
  const cleanup = async () => {
    await dispose();
  };
  return { dir, store, ids, rows, start, cleanup };
}

test('a missing blob root stops the start and removes nothing; back in place, all is served', async () => {
  const m = await withMedia(3);
  try {
    const files = join(m.dir, 'media', 'files');
    renameSync(files, `${files}.away`);
    const first = await m.start();
    await expect(first.listening).rejects.toThrow(
      `the media files directory ${files} is missing, but 3 media rows name files in it`,
    );
    expect(await m.rows()).toBe(3);
    expect(existsSync(files)).toBe(false);

    renameSync(`${files}.away`, files);
    const second = await m.start();
    await second.listening;
    expect(await m.rows()).toBe(3);
    expect(await blobKeys({ store: m.store })).toHaveLength(6);
    await second.app.close();
  } finally {
    await m.cleanup();
  }
});

test('an unreadable blob root stops the start too', async () => {
  // A file where the directory should be (root reads through any mode, so no chmod 000).
  const m = await withMedia(1);
  try {
    const files = join(m.dir, 'media', 'files');
    renameSync(files, `${files}.away`);
    writeFileSync(files, 'not a directory');
    await expect((await m.start()).listening).rejects.toThrow(
      /media files directory .* is not readable/,
    );
    expect(await m.rows()).toBe(1);
  } finally {
    await m.cleanup();
  }
});

test('a sweep that would remove more than 10 % (and 10) of the rows refuses unless forced', async () => {
  const m = await withMedia(12);
  try {
    const keys = (await sql<{ blob_key: string }>(m.store, 'SELECT blob_key FROM media')).map(
      (r) => r.blob_key,
    );
    for (const key of keys.slice(0, 11)) await m.store.blobs.delete(key);
    const refused = await m.start();
    await expect(refused.listening).rejects.toThrow(
      /would remove 11 of 12 media rows .* --force-sweep/,
    );
    expect(await m.rows()).toBe(12);
    const forced = await m.start({ forceSweep: true });
    await forced.listening;
    expect(await m.rows()).toBe(1);
    await forced.app.close();
  } finally {
    await m.cleanup();
  }
});

test('a sweep that would remove more than 10 % (and 10) of the files refuses unless forced', async () => {
  const m = await withMedia(2);
  try {
    await sql(m.store, 'DELETE FROM media');
    // 4 files (2 media with previews) whose rows are gone, plus 8 more strays: 12 of 12 files.
    for (let i = 0; i < 8; i++) {
      const t = m.store.blobs.tempPath();
      writeFileSync(t, 'stray');
      await m.store.blobs.put(`fffffffffffffffffffffff${i}`, t);
    }
    await expect((await m.start()).listening).rejects.toThrow(/and 12 of 12 media files/);
    expect(await blobKeys({ store: m.store })).toHaveLength(12);
  } finally {
    await m.cleanup();
  }
});
