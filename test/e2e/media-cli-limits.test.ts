/** `roster media upload` against a service with a small upload limit: 413 per file. */
import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, serve } from '../helpers/e2e.js';
import { scratch } from '../helpers/scratch.js';

const dirs = scratch();

let srv: Served;
let dir: string;
beforeAll(async () => {
  dir = dirs.temp('roster-media-limits-');
  await writeFile(join(dir, 'small.txt'), 'fits easily\n');
  for (const [name, size] of [
    ['over.bin', 2_000_000],
    ['far-over.bin', 200 * 1024 * 1024],
  ] as const) {
    await writeFile(join(dir, name), '');
    await truncate(join(dir, name), size);
  }
  srv = await serve({ maxUploadBytes: 1_000_000 });
});
afterAll(async () => {
  await srv?.close();
  await dirs.cleanup();
});

describe('media upload over the limit', () => {
  it('413 names the limit for each file that is too large; the rest upload: exit 5', async () => {
    const r = await srv.run([
      'media',
      'upload',
      join(dir, 'over.bin'),
      join(dir, 'small.txt'),
      join(dir, 'far-over.bin'),
    ]);
    expect(r.exitCode, r.stderr).toBe(5);
    expect(JSON.parse(r.stdout).map((m: any) => m.fileName)).toEqual(['small.txt']);
    const limit = 'too large: the service accepts at most 977 KiB (1000000 bytes) per file';
    expect(r.stderr).toContain(`failed ${join(dir, 'over.bin')}: ${limit}; this one is 1.9 MiB`);
    expect(r.stderr).toContain(
      `failed ${join(dir, 'far-over.bin')}: ${limit}; this one is 200 MiB`,
    );
    expect(r.stderr).toContain('1 uploaded, 2 failed');
  });
});
