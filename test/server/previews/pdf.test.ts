import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { describeAndPreview } from '../../../src/server/previews/index.js';
import { expectPicture, previewSetup } from './helpers.js';

const s = previewSetup();
const PDF = { type: 'pdf', mimeType: 'application/pdf', format: 'pdf' } as const;
const run = (path: string, previewPath: string, timeoutMs = 30_000) =>
  describeAndPreview(path, PDF, { previewPath, timeoutMs });

describe('PDF previews (pdfjs in a worker)', () => {
  test('first page: size in points, a non-blank JPEG fitting 800×800', async () => {
    const out = s.out();
    const d = await run(s.paths.pdf, out);
    // A4 is 595×842 pt; fitted to 800 high, 595·800/842 ≈ 565 wide.
    expect(d).toMatchObject({
      width: 595,
      height: 842,
      preview: { width: 565, height: 800, format: 'jpg', mimeType: 'image/jpeg' },
    });
    const picture = await expectPicture(out);
    expect(picture).toMatchObject({ format: 'jpeg', width: 565, height: 800, flat: false });
    // Mostly white paper, with dark text and a blue box: the page was really drawn.
    const [r, , b] = picture.stats.channels;
    expect(r!.min).toBeLessThan(100);
    expect(b!.mean).toBeGreaterThan(r!.mean);
  });

  test('a JPEG 2000 image on the page is drawn (pdfjs finds its wasm decoders)', async () => {
    const out = s.out();
    expect(await run(s.paths.jpxPdf, out)).toMatchObject({ preview: { width: 565 } });
    const { stats } = await expectPicture(out);
    // The page is white but for the image, a colour test pattern.
    expect(stats.channels[0]!.min).toBeLessThan(50);
    expect(stats.channels.some((c) => c.mean < 240)).toBe(true);
  });

  test('a broken PDF rejects (the caller stores it undescribed) and leaves no preview', async () => {
    const bad = join(s.dir, 'bad.pdf');
    await writeFile(bad, '%PDF-1.4\nnot really a PDF\n%%EOF\n');
    const out = s.out();
    await expect(run(bad, out)).rejects.toThrow();
    await expect(access(out)).rejects.toThrow();
  });

  test('past the deadline the worker is stopped and the promise rejects', async () => {
    await expect(run(s.paths.pdf, s.out(), 1)).rejects.toThrow(/longer than 1 ms/);
  });
});
