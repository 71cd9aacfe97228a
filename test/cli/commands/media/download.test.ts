import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { register, runDownload } from '../../../../src/cli/commands/media/download.js';
import type { Medium } from '../../../../src/contract/medium.js';
import { fifoReader } from '../../../helpers/fifo.js';
import { scratch } from '../../../helpers/scratch.js';
import { fakeIO, parseWith, stubClient, testDeps } from '../../helpers.js';
import { medium, rawMedium } from './helpers.js';

const dirs = scratch();

let dir: string;
beforeEach(() => {
  dir = dirs.temp('roster-download-');
});
afterEach(dirs.cleanup);

/** A client serving `m` whose file (and preview) bytes are `bytes`. */
function serving(m: Medium, bytes: Record<string, string>) {
  return stubClient({
    getMedium: async () => m,
    downloadUrl: async (url: string) => Readable.from([Buffer.from(bytes[url] ?? '')]),
  });
}

async function download(m: Medium, bytes: Record<string, string>, opts: object, tty = false) {
  const fake = fakeIO({ tty });
  const stub = serving(m, bytes);
  const err = await runDownload(
    { id: m.id, globals: {}, ...opts },
    testDeps(fake, stub.client),
  ).catch((e) => e);
  return { err, fake, stub };
}

describe('media download: flags → options', () => {
  it.each([
    [['media', 'download', 'm1'], { id: 'm1' }],
    [
      ['media', 'download', 'm1', '--to', 'x.png', '--preview', '--force'],
      { id: 'm1', to: 'x.png', preview: true, force: true },
    ],
  ])('%j', async (argv, expected) => {
    expect(await parseWith(register, argv, 'media')).toMatchObject(expected);
  });
});

describe('media download: run', () => {
  const m = rawMedium('6b0000000000000000000009', 'notes.txt', 5);
  const content = { [m.resourceInfo.url]: 'hello' };

  it('into a directory under the medium file name; progress on a terminal', async () => {
    const r = await download(m, content, { to: dir }, true);
    expect(r.err).toBeUndefined();
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('hello');
    expect(r.fake.err()).toContain(`saved notes.txt (5 B) to ${join(dir, 'notes.txt')}`);
    expect(r.fake.err()).toContain('notes.txt');
    expect(r.stub.calls.map((c) => c.method)).toEqual(['getMedium', 'downloadUrl']);
  });

  it('into a named pipe: written into it (no --force needed), and it stays a pipe', async () => {
    const fifo = join(dir, 'pipe');
    const reader = fifoReader(fifo);
    const r = await download(m, content, { to: fifo });
    expect(r.err).toBeUndefined();
    expect(await reader).toBe('hello');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(['pipe']);
  });

  it('the default name is sanitised', async () => {
    const odd = { ...m, fileName: '..\\..\\evil: "name".txt' };
    await download(odd, content, { to: `${dir}/` });
    expect(readdirSync(dir)).toEqual(['evil_ _name_.txt']);
  });

  it('--preview: the t_preview bytes, named as a preview (never the original file name)', async () => {
    const photo = medium();
    const preview = photo.transformations!.t_preview!.resourceInfo;
    const r = await download(photo, { [preview.url]: 'jpegdata' }, { to: dir, preview: true });
    expect(r.err).toBeUndefined();
    expect(readdirSync(dir)).toEqual(['photo.preview.jpg']);
    expect(readFileSync(join(dir, 'photo.preview.jpg'), 'utf8')).toBe('jpegdata');
  });

  it('--preview on a medium without one: exit 4, nothing written', async () => {
    const r = await download(m, content, { to: dir, preview: true });
    expect(r.err.exitCode).toBe(4);
    expect(r.err.message).toContain('has no preview');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an existing file is kept (exit 2) unless --force', async () => {
    const target = join(dir, 'mine.txt');
    writeFileSync(target, 'mine');
    const r = await download(m, content, { to: target });
    expect(r.err.exitCode).toBe(2);
    expect(r.err.message).toContain('pass --force');
    expect(r.stub.calls.map((c) => c.method)).toEqual(['getMedium']);
    expect(readFileSync(target, 'utf8')).toBe('mine');
    await download(m, content, { to: target, force: true });
    expect(readFileSync(target, 'utf8')).toBe('hello');
  });

  it('a server sending more than the medium holds is cut at its size; nothing is written', async () => {
    let pulled = 0;
    const endless = stubClient({
      getMedium: async () => m,
      downloadUrl: async () =>
        Readable.from(
          (function* () {
            for (;;) {
              pulled++;
              yield Buffer.alloc(64 * 1024, 'x');
            }
          })(),
        ),
    });
    const err = await runDownload(
      { id: m.id, to: dir, globals: {} },
      testDeps(fakeIO(), endless.client),
    ).catch((e) => e);
    expect(err.message).toContain(`more than the medium's ${m.resourceInfo.bytes} bytes`);
    expect(readdirSync(dir)).toEqual([]);
    expect(pulled).toBeLessThan(4);
  });

  it('a short download leaves no file', async () => {
    const r = await download(m, { [m.resourceInfo.url]: 'hel' }, { to: dir });
    expect(r.err.message).toContain('ended after 3 of 5 bytes');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('--to - writes the bytes to stdout', async () => {
    const r = await download(m, content, { to: '-' });
    expect(r.err).toBeUndefined();
    expect(r.fake.out()).toBe('hello');
  });

  it('--to - refuses to write binary bytes to a terminal unless --force, as curl does', async () => {
    const photo = medium();
    const bytes = { [photo.resourceInfo.url]: 'jpegbytes' };
    const r = await download(photo, bytes, { to: '-' }, true);
    expect(r.err.exitCode).toBe(2);
    expect(r.err.message).toContain('binary (image/png) to a terminal');
    expect(r.fake.out()).toBe('');
    const forced = await download(photo, bytes, { to: '-', force: true }, true);
    expect(forced.err).toBeUndefined();
    expect(forced.fake.out()).toBe('jpegbytes');
  });
});
