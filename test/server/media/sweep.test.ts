/** The start-up sweep: what a crash can leave behind is cleaned before the server listens. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { createApp } from '../../../src/server/app.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../../src/server/config.js';
import { openStore } from '../../../src/store/store.js';
import { bootstrap } from '../../../src/store/tenancy.js';
import { requester } from '../../helpers/server.js';
import { blobKeys, fixtures, read, tempFiles, uploadBody } from './media-helpers.js';

const dataDir = mkdtempSync(join(tmpdir(), 'roster-sweep-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('temp files, files without a row and rows without a file are swept at start-up', async () => {
  const png = read((await fixtures()).png);
  const store = openStore(dataDir);
  const token = bootstrap(store)!.adminToken;
  const logs: string[] = [];
  const config = { dataDir, vendor: 'service', maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES };
  const first = createApp({ store, config, log: (l) => logs.push(l) });
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
  const row = (id: string) =>
    store.db.prepare('SELECT * FROM media WHERE id = ?').get(id) as Record<string, string>;
  // (The lost medium's preview then has no row either: it goes too.)
  await store.blobs.delete(row(lost.id).blob_key!);
  await store.blobs.delete(row(kept.id).preview_key!);

  const second = createApp({ store, config, log: (l) => logs.push(l) });
  const again = requester((await second.listen(0)).url, token);
  try {
    expect(await tempFiles({ store })).toEqual([]);
    expect(row(lost.id)).toBeUndefined();
    expect(row(kept.id).preview_key).toBeNull();
    const remaining = [kept, whole].flatMap((m) => {
      const r = row(m.id);
      return [r.blob_key, r.preview_key].filter(Boolean);
    });
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
    store.close();
  }
});
