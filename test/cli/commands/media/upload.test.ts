import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, runUpload } from '../../../../src/cli/commands/media/upload.js';
import { uploadAll } from '../../../../src/cli/commands/media/upload-run.js';
import { transferBars } from '../../../../src/cli/output/transfer.js';
import type { UploadOptions as ClientUpload } from '../../../../src/client/index.js';
import { ApiError, NetworkError, ResponseFormatError } from '../../../../src/client/index.js';
import { eventually } from '../../../helpers/eventually.js';
import { scratch } from '../../../helpers/scratch.js';
import { fakeIO, parseWith, stubClient, testDeps } from '../../helpers.js';
import { rawMedium } from './helpers.js';

const dirs = scratch();

let dir: string;
beforeAll(() => {
  dir = dirs.temp('roster-upload-');
  for (const f of ['a.png', 'b.png', 'notes.txt']) writeFileSync(join(dir, f), `bytes of ${f}`);
  mkdirSync(join(dir, 'sub'));
});
afterAll(dirs.cleanup);

const at = (name: string) => join(dir, name);
const apiError = (status: number, message: string) =>
  new ApiError({
    status,
    method: 'POST',
    url: 'http://api.test/api/media',
    envelope: { identifier: status * 100, statusCode: status, message, type: 'SomeException' },
  });

/** uploadMedium that reports progress and answers a medium named after the file. */
const uploads = (failures: Record<string, Error> = {}) => {
  let n = 0;
  return async (o: ClientUpload) => {
    const name = o.filePath.split('/').at(-1)!;
    o.onProgress?.(0, 10);
    o.onProgress?.(10, 10);
    if (failures[name]) throw failures[name];
    return rawMedium(`6b00000000000000000000${String(++n).padStart(2, '0')}`, name, 10);
  };
};

async function upload(files: string[], stubs = {}, opts: { tty?: boolean; output?: string } = {}) {
  const fake = fakeIO({ tty: opts.tty });
  const stub = stubClient(stubs);
  const err = await runUpload(
    { files, concurrency: 2, globals: { output: opts.output } },
    testDeps(fake, stub.client),
  ).catch((e) => e);
  return { err, out: fake.out(), errText: fake.err(), stub };
}

describe('media upload: flags → options', () => {
  it.each([
    [['media', 'upload', 'a.png'], { files: ['a.png'], concurrency: 4 }],
    [
      ['media', 'upload', 'a.png', 'photos/*.jpg', '--type', 'pdf', '--concurrency', '8'],
      { files: ['a.png', 'photos/*.jpg'], type: 'pdf', concurrency: 8 },
    ],
    [
      ['-o', 'ndjson', 'media', 'upload', 'x'],
      { files: ['x'], globals: expect.objectContaining({ output: 'ndjson' }) },
    ],
  ])('%j', async (argv, expected) => {
    expect(await parseWith(register, argv, 'media')).toMatchObject(expected);
  });

  it('rejects a bad --type or --concurrency, and no files at all', async () => {
    const parse = (argv: string[]) => parseWith(register, ['media', 'upload', ...argv], 'media');
    await expect(parse(['a', '--type', 'gif'])).rejects.toThrow(
      /Allowed choices are image, video, pdf, raw/,
    );
    await expect(parse(['a', '--concurrency', '0'])).rejects.toThrow(/from 1 to 64/);
    await expect(parse([])).rejects.toThrow(/missing required argument/);
  });
});

describe('media upload: run', () => {
  it('globs and plain paths, in order; a missing file and a directory are reported: exit 5', async () => {
    const r = await upload(
      [at('*.png'), at('missing.png'), at('notes.txt'), at('sub'), at('a.png')],
      { uploadMedium: uploads() },
    );
    expect(r.err.exitCode).toBe(5);
    expect(r.err.message).toBe('2 of 5 files failed');
    expect(JSON.parse(r.out).map((m: any) => m.fileName)).toEqual(['a.png', 'b.png', 'notes.txt']);
    expect(r.errText).toContain(`failed ${at('missing.png')}: no such file\n`);
    expect(r.errText).toContain(`failed ${at('sub')}: is a directory`);
    expect(r.errText).toMatch(/uploaded .*a\.png → 6b0\w+ \(raw, 10 B\)\n/);
    expect(r.errText).toContain('3 uploaded, 2 failed\n');
    // a.png named twice (by the glob and by itself) uploads once.
    expect(r.stub.calls.map((c) => (c.args[0] as ClientUpload).filePath).sort()).toEqual(
      [at('a.png'), at('b.png'), at('notes.txt')].sort(),
    );
  });

  it('a pattern that matches nothing stops before anything: exit 2 naming it', async () => {
    const r = await upload([at('a.png'), at('*.gif'), at('none/**/*.pdf')]);
    expect(r.err.exitCode).toBe(2);
    expect(r.err.message).toBe(
      `no file matches '${at('*.gif')}', '${at('none/**/*.pdf')}'; nothing was uploaded`,
    );
    expect(r.stub.calls).toEqual([]);
  });

  it('passes --type and the abort signal to the client; all done: exit 0', async () => {
    const fake = fakeIO();
    const stub = stubClient({ uploadMedium: uploads() });
    await runUpload(
      { files: [at('a.png')], type: 'raw', concurrency: 4, globals: {} },
      testDeps(fake, stub.client),
    );
    const args = stub.calls[0]!.args[0] as ClientUpload;
    expect(args).toMatchObject({ filePath: at('a.png'), type: 'raw' });
    expect(args.signal).toBeInstanceOf(AbortSignal);
    expect(fake.err()).toContain('1 uploaded, 0 failed');
    stub.assertAllUsed();
  });

  it('413 names the limit and the file size; the other files still upload', async () => {
    const tooLarge = apiError(413, 'the file is larger than the upload limit of 1000000 bytes');
    const r = await upload([at('a.png'), at('b.png')], {
      uploadMedium: uploads({ 'b.png': tooLarge }),
    });
    expect(r.err.exitCode).toBe(5);
    expect(r.errText).toContain(
      `failed ${at('b.png')}: too large: the service accepts at most 977 KiB (1000000 bytes) per file; this one is 14 B`,
    );
    expect(JSON.parse(r.out)).toHaveLength(1);
  });

  it('none uploaded: exit 1 (and an empty JSON array)', async () => {
    const r = await upload([at('missing.png')]);
    expect(r.err.exitCode).toBe(1);
    expect(r.err.message).toBe(`${at('missing.png')} was not uploaded`);
    expect(r.out).toBe('[]\n');
  });

  it('a rejected token stops further uploads (main maps it to exit 3)', async () => {
    const denied = apiError(401, 'the token is not valid');
    const fake = fakeIO();
    const stub = stubClient({ uploadMedium: uploads({ 'a.png': denied }) });
    const err = await runUpload(
      { files: [at('a.png'), at('b.png'), at('notes.txt')], concurrency: 1, globals: {} },
      testDeps(fake, stub.client),
    ).catch((e) => e);
    expect(err).toBe(denied);
    expect(stub.calls).toHaveLength(1);
    expect(fake.err()).toContain('0 uploaded, 1 failed, 2 not started');
  });

  it('a service that stops answering stops further uploads too', async () => {
    const silent = new NetworkError({
      method: 'POST',
      url: 'http://api.test/api/media',
      code: 'UND_ERR_HEADERS_TIMEOUT',
      cause: null,
      attempts: 1,
      timeoutMs: 60_000,
    });
    const stub = stubClient({ uploadMedium: uploads({ 'a.png': silent }) });
    const err = await runUpload(
      { files: [at('a.png'), at('b.png')], concurrency: 1, globals: {} },
      testDeps(fakeIO(), stub.client),
    ).catch((e) => e);
    expect(err).toBe(silent);
    expect(stub.calls).toHaveLength(1);
  });

  it("a proxy's HTML error page about one file fails that file only", async () => {
    const proxy413 = new ResponseFormatError({
      status: 413,
      method: 'POST',
      url: 'http://api.test/api/media',
      contentType: 'text/html',
    });
    const r = await upload([at('a.png'), at('b.png')], {
      uploadMedium: uploads({ 'a.png': proxy413 }),
    });
    expect(r.err.exitCode).toBe(5);
    expect(JSON.parse(r.out)).toHaveLength(1);
  });

  it('on a terminal: progress bars on stderr, a table of media on stdout', async () => {
    const r = await upload(
      [at('a.png'), at('notes.txt')],
      { uploadMedium: uploads() },
      { tty: true },
    );
    expect(r.err).toBeUndefined();
    expect(r.out).toMatch(/│ id\s+│ name\s+│ type\s+│ size\s+│ dimensions\s+│ preview\s+│/);
    expect(r.out).toMatch(/│ notes\.txt\s+│ raw\s+│ 10 B\s+│\s+│ no\s+│/);
    expect(r.errText).toContain('a.png [--------------------] 0 B/14 B 0%');
    expect(r.errText).toContain('of 2 files done');
  });

  it('ndjson and csv', async () => {
    const nd = await upload(
      [at('a.png'), at('b.png')],
      { uploadMedium: uploads() },
      { output: 'ndjson' },
    );
    expect(
      nd.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).fileName),
    ).toEqual(['a.png', 'b.png']);
    const csv = await upload([at('a.png')], { uploadMedium: uploads() }, { output: 'csv' });
    expect(csv.out).toBe(
      'id,name,type,bytes,dimensions,preview\n6b0000000000000000000001,a.png,raw,10,,no\n',
    );
  });
});

describe('uploadAll: concurrency and cancelling', () => {
  const tasks = ['a', 'b', 'c', 'd', 'e'].map((n) => ({ name: n, size: 1 }));

  it('keeps at most --concurrency files in flight', async () => {
    let inFlight = 0;
    let most = 0;
    /** One per upload in flight: the test finishes uploads one at a time. */
    const finish: (() => void)[] = [];
    const stub = stubClient({
      uploadMedium: async (o: ClientUpload) => {
        most = Math.max(most, ++inFlight);
        await new Promise<void>((r) => finish.push(r));
        inFlight--;
        return rawMedium('6b0000000000000000000001', o.filePath);
      },
    });
    const running = uploadAll(stub.client, tasks, {
      concurrency: 2,
      signal: new AbortController().signal,
      bars: transferBars(fakeIO().io),
      onOutcome: () => {},
    });
    await eventually(() => finish.length === 2);
    for (let done = 0; done < tasks.length; done++) {
      await eventually(() => finish.length > 0);
      finish.shift()!();
    }
    const run = await running;
    expect(most).toBe(2);
    expect(run.outcomes.map((o) => o?.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('an abort cancels the uploads in flight and starts no more', async () => {
    const controller = new AbortController();
    let inFlight = 0;
    const stub = stubClient({
      uploadMedium: (o: ClientUpload) =>
        new Promise((_resolve, reject) => {
          inFlight++;
          o.signal!.addEventListener('abort', () => reject(o.signal!.reason));
        }),
    });
    const outcomes: unknown[] = [];
    const running = uploadAll(stub.client, tasks, {
      concurrency: 2,
      signal: controller.signal,
      bars: transferBars(fakeIO().io),
      onOutcome: (o) => outcomes.push(o),
    });
    await eventually(() => inFlight === 2);
    controller.abort(new Error('interrupted'));
    const run = await running;
    expect(run.started).toBe(2);
    expect(outcomes).toEqual([]);
    expect((run.stopped as Error).message).toBe('interrupted');
  });
});
