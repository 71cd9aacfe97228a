/** The media API over HTTP, run against any server (in-process or the built `roster serve`). */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { validating } from '../../helpers/openapi-validation.js';
import type { StartServer, TestServer } from '../../helpers/server.js';
import {
  type FixtureKey,
  fixtures,
  mediaRows,
  multipart,
  type Part,
  read,
  tempFiles,
  tokenIdOf,
  upload,
} from './media-helpers.js';

const ID = /^[0-9a-f]{24}$/;
type Files = Awaited<ReturnType<typeof fixtures>>;

export function mediaApiSuite(start: StartServer) {
  let s: TestServer;
  let files: Files;
  beforeAll(async () => {
    [s, files] = await Promise.all([start().then(validating), fixtures()]);
  });
  afterAll(() => s.close());

  const put = (key: FixtureKey, name?: string, opts: { type?: string; token?: string } = {}) => {
    const path = files[key];
    if (!path) throw new Error(`fixture ${key} is missing (is ffmpeg installed?)`);
    return upload(s, read(path), name ?? path.split('/').at(-1)!, opts);
  };
  /** GETs a content URL with no token (signed URLs need none). */
  const fetchUrl = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers });
    return { res, body: Buffer.from(await res.arrayBuffer()) };
  };
  const post = (body: Buffer | string, contentType?: string) =>
    s.req('POST', '/api/media', {
      headers: contentType ? { 'content-type': contentType } : {},
      body,
    });

  describe('POST /api/media', () => {
    test('a PNG: the Medium as the spec shapes it, a preview, the same bytes on the CDN', async () => {
      const r = await put('png', undefined, { type: 'image' });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      const m = r.json;
      expect(Object.keys(m).sort()).toEqual([
        'entityType',
        'fileName',
        'id',
        'ownerID',
        'ownerType',
        'publicID',
        'resourceInfo',
        'transformations',
      ]);
      expect(m.id).toMatch(ID);
      expect(m).toMatchObject({
        ownerType: 'token',
        ownerID: tokenIdOf(s.adminToken),
        publicID: `_default/main/${m.id}/photo-640x480.png`,
        fileName: 'photo-640x480.png',
        entityType: 'medium',
        resourceInfo: {
          type: 'image',
          bytes: read(files.png).length,
          width: 640,
          height: 480,
          format: 'png',
          mimeType: 'image/png',
        },
      });
      expect(m.resourceInfo).not.toHaveProperty('duration');
      expect(m.resourceInfo.url).toMatch(
        new RegExp(
          `^${s.url}/cdn/_default/main/${m.id}/photo-640x480\\.png\\?expires=\\d+&signature=[\\w-]{43}$`,
        ),
      );
      const preview = m.transformations.t_preview;
      expect(preview).toMatchObject({
        transformationString: 't_preview',
        status: 'FINISHED',
        resourceInfo: { type: 'image', width: 640, height: 480 },
      });
      expect(preview.resourceInfo.url).toContain(`/cdn/_default/main/${m.id}/t_preview/`);

      const original = await fetchUrl(m.resourceInfo.url);
      expect(original.res.status).toBe(200);
      expect(original.res.headers.get('content-type')).toBe('image/png');
      expect(original.res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(original.body.equals(read(files.png))).toBe(true);
      const thumb = await fetchUrl(preview.resourceInfo.url);
      expect(thumb.res.status).toBe(200);
      expect(thumb.res.headers.get('content-type')).toBe(preview.resourceInfo.mimeType);
      expect(thumb.body.length).toBe(preview.resourceInfo.bytes);
    });

    test('a JPEG with EXIF orientation 6 is described and previewed upright (300×400)', async () => {
      const r = await put('exifJpeg');
      expect(r.status).toBe(200);
      expect(r.json.resourceInfo).toMatchObject({
        type: 'image',
        width: 300,
        height: 400,
        format: 'jpg',
        mimeType: 'image/jpeg',
      });
      expect(r.json.transformations.t_preview.resourceInfo).toMatchObject({
        width: 300,
        height: 400,
      });
    });

    test('a PDF: first-page dimensions and a preview of that page', async () => {
      const r = await put('pdf', undefined, { type: 'pdf' });
      expect(r.status).toBe(200);
      const info = r.json.resourceInfo;
      expect(info).toMatchObject({ type: 'pdf', format: 'pdf', mimeType: 'application/pdf' });
      expect(info.width / info.height).toBeCloseTo(595 / 842, 2);
      const preview = r.json.transformations.t_preview.resourceInfo;
      expect(preview.type).toBe('image');
      expect(preview.width / preview.height).toBeCloseTo(595 / 842, 1);
      expect(Math.max(preview.width, preview.height)).toBeLessThanOrEqual(800);
    });

    test('an MP4: width, height, duration and a frame as preview (ffmpeg)', async () => {
      const r = await put('mp4', undefined, { type: 'video' });
      expect(r.status).toBe(200);
      expect(r.json.resourceInfo).toMatchObject({
        type: 'video',
        width: 320,
        height: 240,
        mimeType: 'video/mp4',
      });
      expect(r.json.resourceInfo.duration).toBeCloseTo(2, 1);
      expect(r.json.transformations.t_preview.resourceInfo).toMatchObject({
        type: 'image',
        width: 320,
        height: 240,
      });
    });

    test('the bytes decide the type: metaData and the part Content-Type are hints', async () => {
      const r = await put('png', 'looks-like.pdf', { type: 'video' });
      expect(r.status).toBe(200);
      expect(r.json.resourceInfo).toMatchObject({ type: 'image', mimeType: 'image/png' });
      expect(r.json.fileName).toBe('looks-like.pdf');
      // No metaData part at all: still an image with a preview.
      const bare = multipart([{ name: 'file', data: read(files.png), fileName: 'bare.png' }]);
      const r2 = await post(bare.body, bare.contentType);
      expect(r2.status).toBe(200);
      expect(r2.json.transformations.t_preview).toBeDefined();
    });

    test('metaData may come as a file part (curl -F metaData=@meta.json)', async () => {
      const { body, contentType } = multipart([
        { name: 'metaData', data: '{"type":"raw"}', fileName: 'meta.json' },
        { name: 'file', data: Buffer.from('x'), fileName: 'x.txt' },
      ]);
      const r = await post(body, contentType);
      expect(r.status).toBe(200);
      expect(r.json.fileName).toBe('x.txt');
    });

    test('a text file is raw, served as an attachment; no preview, no transformations', async () => {
      const r = await put('text', 'notes.txt', { type: 'raw' });
      expect(r.status).toBe(200);
      expect(r.json.resourceInfo.type).toBe('raw');
      expect(r.json).not.toHaveProperty('transformations');
      const got = await fetchUrl(r.json.resourceInfo.url);
      expect(got.body.equals(read(files.text))).toBe(true);
    });

    test('a zero-byte file is stored, described and served', async () => {
      const r = await put('empty', 'empty.bin');
      expect(r.status).toBe(200);
      expect(r.json.resourceInfo).toMatchObject({ type: 'raw', bytes: 0 });
      expect(r.json).not.toHaveProperty('transformations');
      const got = await fetchUrl(r.json.resourceInfo.url);
      expect(got.res.status).toBe(200);
      expect(got.body.length).toBe(0);
    });

    test('a corrupt image is stored without a preview', async () => {
      const r = await put('corruptPng', 'broken.png', { type: 'image' });
      expect(r.status).toBe(200);
      expect(r.json.resourceInfo.bytes).toBe(read(files.corruptPng).length);
      expect(r.json.transformations?.t_preview).toBeUndefined();
    });

    test('a pixel bomb is stored without a preview', async () => {
      const r = await put('pixelBomb', 'bomb.png', { type: 'image' });
      expect(r.status).toBe(200);
      expect(r.json.resourceInfo.type).toBe('image');
      expect(r.json.transformations?.t_preview).toBeUndefined();
    });

    test('an SVG with a script is served so that the script cannot run', async () => {
      const r = await put('svg', 'script.svg', { type: 'image' });
      expect(r.status).toBe(200);
      expect(r.json.resourceInfo.mimeType).toBe('image/svg+xml');
      const got = await fetchUrl(r.json.resourceInfo.url);
      expect(got.res.status).toBe(200);
      expect(got.res.headers.get('content-type')).toBe('image/svg+xml');
      expect(got.res.headers.get('content-security-policy')).toMatch(/(^|;\s*)sandbox(;|$)/);
      expect(got.res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.body.equals(read(files.svg))).toBe(true);
    });

    test('hostile and unusual names are sanitised; the publicID stays four segments', async () => {
      const data = Buffer.from('hello');
      const names = ['../../x', '..\\..\\evil.txt', `${'a'.repeat(500)}.txt`, '..', '.'];
      names.push(' spaced .txt', 'Grüße 東京 #1?.txt', 'a%2F..%2Fb.txt', 'tab\there.txt');
      const encoded = (value: string) => `form-data; name="file"; filename*=UTF-8''${value}`;
      const parts: Part[] = [
        ...names.map((fileName) => ({ name: 'file', data, fileName })),
        { name: 'file', data, disposition: encoded('nul%00byte.txt') },
        { name: 'file', data, disposition: encoded('ctl%07%1B%5B31m%7F.txt') },
        { name: 'file', data, disposition: encoded('%2E%2E') },
      ];
      for (const part of parts) {
        const label = JSON.stringify(part.fileName ?? part.disposition);
        const { body, contentType } = multipart([part]);
        const r = await post(body, contentType);
        expect(r.status, label).toBe(200);
        const { fileName, publicID, resourceInfo } = r.json;
        expect(fileName.length, label).toBeGreaterThan(0);
        expect(Buffer.byteLength(fileName), label).toBeLessThanOrEqual(255);
        expect(fileName, label).not.toMatch(/[/\\\p{Cc}]/u);
        expect(['.', '..'], label).not.toContain(fileName);
        expect(publicID.split('/'), label).toHaveLength(4);
        const got = await fetchUrl(resourceInfo.url);
        expect(got.res.status, label).toBe(200);
        expect(got.body.toString(), label).toBe('hello');
      }
      const utf8 = await upload(s, data, 'Grüße 東京.txt');
      expect(utf8.json.fileName).toBe('Grüße 東京.txt');
    });

    test('a 10,000-character name is stored, echoed and served cut to 255 bytes with its extension', async () => {
      const r = await upload(
        s,
        Buffer.from('hello'),
        `${'n'.repeat(5000)}é${'m'.repeat(4994)}.txt`,
      );
      expect(r.status).toBe(200);
      const { fileName, publicID, resourceInfo } = r.json;
      expect(Buffer.byteLength(fileName)).toBeLessThanOrEqual(255);
      expect(fileName).toMatch(/^n+\.txt$/);
      expect(publicID.endsWith(`/${fileName}`)).toBe(true);
      const got = await fetchUrl(resourceInfo.url);
      expect(got.res.headers.get('content-disposition')!.length).toBeLessThan(1000);
    });

    test('an empty filename="" is answered as a file part without a name, not as a second metaData', async () => {
      for (const parts of [
        [{ name: 'file', data: 'x', fileName: '' }],
        [
          { name: 'metaData', data: '{"type":"image"}' },
          { name: 'file', data: 'x', fileName: '' },
        ],
      ]) {
        const { body, contentType } = multipart(parts);
        const r = await post(body, contentType);
        expect(r.status).toBe(400);
        expect(r.json.message).toMatch(/file part has no file name/);
      }
    });

    test('raw control bytes in a part header are a malformed body (400), nothing stored', async () => {
      const before = await mediaRows(s);
      for (const byte of [0x00, 0x07, 0x1b]) {
        const { body, contentType } = multipart([
          {
            name: 'file',
            data: Buffer.from('x'),
            disposition: Buffer.concat([
              Buffer.from('form-data; name="file"; filename="bad'),
              Buffer.from([byte]),
              Buffer.from('.txt"'),
            ]),
          },
        ]);
        const r = await post(body, contentType);
        expect(r.status, String(byte)).toBe(400);
        expect(r.json.message).toMatch(/malformed/);
      }
      expect(await mediaRows(s)).toBe(before);
      expect(await tempFiles(s)).toEqual([]);
    });
  });

  describe('POST /api/media: bad requests leave nothing behind', () => {
    const png = () => read(files.png);
    const file = (name = 'a.png') => ({ name: 'file', data: png(), fileName: name });
    const meta = (data: string) => ({ name: 'metaData', data });
    const cases: [string, number, () => { body: Buffer | string; contentType?: string }][] = [
      ['no file part', 400, () => multipart([meta('{"type":"image"}')])],
      ['two file parts', 400, () => multipart([file('a.png'), file('b.png')])],
      ['metaData, file and one more', 400, () => multipart([meta('{}'), file(), meta('{}')])],
      ['malformed metaData', 400, () => multipart([meta('{"type":'), file()])],
      ['metaData with an unknown type', 400, () => multipart([meta('{"type":"audio"}'), file()])],
      ['metaData with an unknown key', 400, () => multipart([meta('{"tags":[]}'), file()])],
      ['metaData that is not an object', 400, () => multipart([meta('"image"'), file()])],
      [
        'a file part without a file name',
        400,
        () => multipart([{ name: 'file', data: 'x', contentType: 'text/plain' }]),
      ],
      ['an unknown part', 400, () => multipart([{ name: 'other', data: 'x' }, file()])],
      [
        'a truncated body',
        400,
        () => {
          const whole = multipart([file()]);
          return { ...whole, body: whole.body.subarray(0, whole.body.length - 200) };
        },
      ],
      ['an empty body', 400, () => ({ ...multipart([]), body: '' })],
      [
        'multipart without a boundary',
        400,
        () => ({ body: 'x', contentType: 'multipart/form-data' }),
      ],
      ['a JSON body', 415, () => ({ body: '{"type":"image"}', contentType: 'application/json' })],
      ['a raw image body', 415, () => ({ body: png(), contentType: 'image/png' })],
      ['no Content-Type', 415, () => ({ body: png() })],
    ];
    test.each(cases)('%s → %i', async (_name, status, make) => {
      const before = await mediaRows(s);
      const { body, contentType } = make();
      const r = await post(body, contentType);
      expect(r.status).toBe(status);
      expect(r.json).toMatchObject({ statusCode: status });
      expect(await mediaRows(s)).toBe(before);
      expect(await tempFiles(s)).toEqual([]);
    });
  });

  describe('GET, DELETE, OPTIONS', () => {
    test('GET /api/media/{id} answers the Medium as POST did; unknown ids 404', async () => {
      const created = (await put('png')).json;
      const got = await s.req('GET', `/api/media/${created.id}`);
      expect(got.status).toBe(200);
      expect(got.json).toEqual(created);
      const missing = await s.req('GET', '/api/media/000000000000000000000000');
      expect(missing.status).toBe(404);
      expect(missing.json).toMatchObject({ identifier: 40408, type: 'NotFoundException' });
      expect(missing.json.message).toContain('000000000000000000000000');
    });

    test('GET /api/media lists newest first, with limit/offset like users', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await put('text', `list-${i}.txt`)).json.id);
      const all = await s.req('GET', '/api/media');
      expect(all.status).toBe(200);
      expect(all.json).toMatchObject({ limit: 100, offset: 0 });
      expect(all.json.total).toBe(all.json.data.length);
      const listed = all.json.data.map((m: { id: string }) => m.id);
      expect(listed).toEqual([...listed].sort().reverse());
      expect(listed.slice(0, 3)).toEqual([...ids].reverse());
      const page = await s.req('GET', '/api/media?limit=2&offset=1');
      expect(page.json).toMatchObject({ limit: 2, offset: 1, total: all.json.total });
      expect(page.json.data.map((m: { id: string }) => m.id)).toEqual(listed.slice(1, 3));
      expect((await s.req('GET', '/api/media?limit=5000')).json.limit).toBe(1000);
      for (const q of ['limit=0', 'limit=x', 'offset=-1', 'limit=1&limit=2', 'sort=id']) {
        const bad = await s.req('GET', `/api/media?${q}`);
        expect(bad.status, q).toBe(400);
        expect(bad.json.identifier, q).toBe(40000);
      }
    });

    test('DELETE → 204; gone at once from the API and the CDN (signed URL and preview)', async () => {
      const m = (await put('png')).json;
      const del = await s.req('DELETE', `/api/media/${m.id}`);
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expect((await s.req('GET', `/api/media/${m.id}`)).status).toBe(404);
      expect((await s.req('DELETE', `/api/media/${m.id}`)).status).toBe(404);
      expect((await fetchUrl(m.resourceInfo.url)).res.status).toBe(404);
      expect((await fetchUrl(m.transformations.t_preview.resourceInfo.url)).res.status).toBe(404);
      const list = await s.req('GET', '/api/media?limit=1000');
      expect(list.json.data.map((x: { id: string }) => x.id)).not.toContain(m.id);
    });

    test('OPTIONS answers 204 with Allow; other methods 405', async () => {
      const list = await s.req('OPTIONS', '/api/media');
      expect(list.status).toBe(204);
      expect(list.headers.allow).toBe('OPTIONS, POST, GET');
      const one = await s.req('OPTIONS', '/api/media/anything');
      expect(one.status).toBe(204);
      expect(one.headers.allow).toBe('OPTIONS, GET, DELETE');
      const put405 = await s.req('PUT', '/api/media/anything', { body: '{}' });
      expect(put405.status).toBe(405);
      expect(put405.json.identifier).toBe(40500);
    });

    test('an unsupported Accept is 406; application/json and none are fine', async () => {
      const r = await s.req('GET', '/api/media', {
        headers: { accept: 'application/vnd.service.accessors.users.v2+json' },
      });
      expect(r.status).toBe(406);
      const ok = await s.req('GET', '/api/media', { headers: { accept: 'application/json' } });
      expect(ok.status).toBe(200);
    });
  });

  describe('scopes and isolation', () => {
    test('scopes answer as the contract table says', async () => {
      const m = (await put('text', 'scoped.txt')).json;
      const noRead = await s.token({ scopes: ['media:write', 'users:read'] });
      const noWrite = await s.token({ scopes: ['media:read'] });
      for (const [method, path] of [
        ['GET', '/api/media'],
        ['GET', `/api/media/${m.id}`],
      ]) {
        const r = await s.req(method!, path!, { token: noRead });
        expect(r.status, `${method} ${path}`).toBe(401);
        expect(r.json.identifier).toBe(40102);
      }
      const post401 = await upload(s, Buffer.from('x'), 'x.txt', { token: noWrite });
      expect(post401.status).toBe(401);
      expect(post401.json.identifier).toBe(40102);
      const del403 = await s.req('DELETE', `/api/media/${m.id}`, { token: noWrite });
      expect(del403.status).toBe(403);
      expect(del403.json).toMatchObject({ identifier: 40308, type: 'AccessDeniedException' });
      expect(del403.json.message).toContain("'main'");
      expect((await s.req('GET', `/api/media/${m.id}`, { token: noWrite })).status).toBe(200);
      expect((await s.req('GET', '/api/media', { token: null })).status).toBe(401);
    });

    test('a token sees only its own branch; the owner is the uploading token', async () => {
      const other = await s.token({ branch: 'media-other' });
      const mine = (await put('text', 'mine.txt')).json;
      const theirs = (await upload(s, Buffer.from('t'), 'theirs.txt', { token: other })).json;
      expect(theirs.publicID).toBe(`_default/media-other/${theirs.id}/theirs.txt`);
      expect(theirs.ownerID).toBe(tokenIdOf(other));
      expect((await s.req('GET', `/api/media/${mine.id}`, { token: other })).status).toBe(404);
      expect((await s.req('DELETE', `/api/media/${mine.id}`, { token: other })).status).toBe(404);
      const list = await s.req('GET', '/api/media?limit=1000', { token: other });
      expect(list.json.data.map((x: { id: string }) => x.id)).toEqual([theirs.id]);
      expect(list.json.total).toBe(1);
      expect((await s.req('GET', `/api/media/${mine.id}`)).status).toBe(200);
    });
  });
}
