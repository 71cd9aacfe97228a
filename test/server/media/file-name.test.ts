import { describe, expect, test } from 'vitest';
import { sanitizeFileName } from '../../../src/server/media/file-name.js';

describe('sanitizeFileName', () => {
  test.each([
    ['photo.png', 'photo.png'],
    ['../../x', 'x'],
    ['C:\\Users\\me\\evil.txt', 'evil.txt'],
    ['a\u0000b\u0007c\u001b.txt', 'abc.txt'],
    ['invoice\u202egpj.exe', 'invoicegpj.exe'],
    ['  spaced  .txt  ', 'spaced  .txt'],
    ['trailing dots...', 'trailing dots'],
    ['Gru\u0308ße.txt', 'Grüße.txt'],
    ['.hidden', '.hidden'],
  ])('%j → %j', (raw, expected) => {
    expect(sanitizeFileName(raw, 'bin')).toBe(expected);
  });

  test('empty, dot-only and missing names fall back to file.<format>', () => {
    for (const raw of [undefined, '', '.', '..', '...', '/', 'dir/', '\u0000']) {
      expect(sanitizeFileName(raw, 'png')).toBe('file.png');
    }
    expect(sanitizeFileName(undefined, '')).toBe('file');
  });

  test('long names are cut to 255 UTF-8 bytes, keeping the extension and whole characters', () => {
    const ascii = sanitizeFileName(`${'a'.repeat(500)}.jpeg`, 'jpg');
    expect(Buffer.byteLength(ascii)).toBe(255);
    expect(ascii.endsWith('a.jpeg')).toBe(true);
    const wide = sanitizeFileName(`${'東'.repeat(200)}.txt`, 'txt');
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(255);
    expect(wide).toMatch(/^東+\.txt$/);
  });
});
