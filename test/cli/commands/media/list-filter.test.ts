/**
 * `media list --type image|video|pdf|raw --query NAME`: the service's list has no filter, so the
 * client scans the pages and keeps the matches. In-process against a real server.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServed, startCliServed } from '../../../helpers/cli-run.js';

let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed();
  const dir = srv.dataDir;
  const png = { create: { width: 8, height: 8, channels: 3, background: '#f00' } } as const;
  await sharp(png).png().toFile(join(dir, 'Team-Photo.png'));
  await sharp(png).png().toFile(join(dir, 'logo.png'));
  copyFileSync('fixtures/media/jpeg2000-image.pdf', join(dir, 'photo-report.pdf'));
  copyFileSync('fixtures/media/notes.txt', join(dir, 'notes.txt'));
  const names = ['Team-Photo.png', 'logo.png', 'photo-report.pdf', 'notes.txt'];
  const r = await srv.run(['media', 'upload', ...names.map((n) => join(dir, n))]);
  expect(r.exitCode, r.stderr).toBe(0);
});
afterAll(async () => {
  await srv?.close();
});

const names = async (...args: string[]) => {
  const r = await srv.run(['media', 'list', ...args]);
  expect(r.exitCode, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { fileName: string }[]).map((m) => m.fileName).sort();
};

describe('media list filters', () => {
  it('--type keeps one kind', async () => {
    expect(await names('--type', 'image')).toEqual(['Team-Photo.png', 'logo.png']);
    expect(await names('--type', 'pdf')).toEqual(['photo-report.pdf']);
    expect(await names('--type', 'raw')).toEqual(['notes.txt']);
    expect(await names('--type', 'video')).toEqual([]);
  });

  it('--query matches part of the file name, without regard to case', async () => {
    expect(await names('--query', 'PHOTO')).toEqual(['Team-Photo.png', 'photo-report.pdf']);
  });

  it('both together; --limit caps the matches', async () => {
    expect(await names('--query', 'photo', '--type', 'image')).toEqual(['Team-Photo.png']);
    expect(await names('--type', 'image', '--limit', '1')).toHaveLength(1);
  });

  it('an unknown type is a usage error naming the types', async () => {
    const r = await srv.run(['media', 'list', '--type', 'gif']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/image, video, pdf, raw/);
  });
});
