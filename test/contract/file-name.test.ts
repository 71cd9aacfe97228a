/** `safeFileName`: the one rule for names the service stores and the CLI writes to disk. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeFileName } from '../../src/contract/file-name.js';

const UNWANTED = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const bytes = (s: string) => Buffer.byteLength(s);
const stored = (raw: string) => safeFileName(raw, { fallback: 'file' });
const local = (raw: string) => safeFileName(raw, { fallback: 'medium-1', local: true });

/** Names built from the parts that make them hostile, mixed with ordinary text. */
const hostile = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 8 }),
      fc.constantFrom('/', '\\', '..', '.', ' ', '\u3000', '\t', '\n', '\u0000', '\u007f'),
      fc.constantFrom('\u0085', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069'),
      fc.constantFrom('e\u0301', '\u0301', 'CON', 'lpt1', ':', '*', '?', '"', '<', '|'),
      fc.constantFrom('ä', '東', '😀', '\ud800', '.jpeg', '.tar.gz'),
      fc.string({ unit: 'grapheme', minLength: 100, maxLength: 400 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

describe('properties, for any name', () => {
  it('one path segment: not empty, `.` or `..`; no separators, controls or bidi; ≤ 255 UTF-8 bytes', () => {
    fc.assert(
      fc.property(hostile, (raw) => {
        for (const name of [stored(raw), local(raw)]) {
          expect(name).not.toMatch(/[/\\]/);
          expect(name).not.toMatch(UNWANTED);
          expect(['', '.', '..']).not.toContain(name);
          expect(name).not.toMatch(/[\s.]$/);
          expect(bytes(name)).toBeLessThanOrEqual(255);
          expect(name).toBe(name.normalize('NFC'));
        }
      }),
      { seed: 23, numRuns: 2000 },
    );
  });

  it('local names: no leading dot, none of the characters or device names Windows refuses', () => {
    fc.assert(
      fc.property(hostile, (raw) => {
        const name = local(raw);
        expect(name).not.toMatch(/^[\s.]/);
        expect(name).not.toMatch(/[<>:"|?*]/);
        expect(name).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i);
      }),
      { seed: 23, numRuns: 2000 },
    );
  });

  it('stable: a safe name stays as it is', () => {
    fc.assert(
      fc.property(hostile, (raw) => {
        expect(stored(stored(raw))).toBe(stored(raw));
        expect(local(local(raw))).toBe(local(raw));
      }),
      { seed: 23, numRuns: 2000 },
    );
  });

  it('a long name is cut at a code point within 255 bytes, keeping a short extension', () => {
    const longName = fc.tuple(
      fc.string({ unit: 'grapheme', minLength: 100, maxLength: 600 }),
      fc.constantFrom('.jpeg', '.png', '.tar', ''),
    );
    fc.assert(
      fc.property(longName, ([stem, ext]) => {
        const raw = `x${stem}${ext}`;
        for (const name of [stored(raw), local(raw)]) {
          expect(bytes(name)).toBeLessThanOrEqual(255);
          // No half of a surrogate pair (a lone surrogate would be written as U+FFFD).
          expect(name).not.toMatch(/\p{Cs}/u);
          if (bytes(stored(`x${stem}`)) > 255 && ext) expect(name.endsWith(ext)).toBe(true);
        }
      }),
      { seed: 23, numRuns: 1000 },
    );
  });
});

describe('hostile names, one by one', () => {
  it.each([
    ['../../etc/passwd', 'passwd', 'passwd'],
    ['..\\..\\windows\\system32\\cmd.exe', 'cmd.exe', 'cmd.exe'],
    ['..', 'file', 'medium-1'],
    ['./.', 'file', 'medium-1'],
    ['.. ', 'file', 'medium-1'],
    ['.hidden', '.hidden', 'hidden'],
    ['bell\u0007\u001b[31mred.txt', 'bell[31mred.txt', 'bell[31mred.txt'],
    ['nul\u0000byte.png', 'nulbyte.png', 'nulbyte.png'],
    ['c1\u0085\u009bnext.txt', 'c1next.txt', 'c1next.txt'],
    ['invoice\u202egpj.exe', 'invoicegpj.exe', 'invoicegpj.exe'],
    ['\u2066isolate\u2069\u200e\u200f.pdf', 'isolate.pdf', 'isolate.pdf'],
    ['line\nbreak.txt', 'linebreak.txt', 'linebreak.txt'],
    ['e\u0000\u0301.txt', 'é.txt', 'é.txt'],
    ['CON', 'CON', '_CON'],
    ['aux.tar.gz', 'aux.tar.gz', '_aux.tar.gz'],
    ['a<b>c:d"e|f?g*h.txt', 'a<b>c:d"e|f?g*h.txt', 'a_b_c_d_e_f_g_h.txt'],
    ['name.\u3000', 'name', 'name'],
    ['\u3000 .name', '.name', 'name'],
  ])('%j → stored %j, local %j', (raw, asStored, asLocal) => {
    expect(stored(raw)).toBe(asStored);
    expect(local(raw)).toBe(asLocal);
  });

  it.each([
    ['ASCII', 'a', 1],
    ['two-byte ä', 'ä', 2],
    ['three-byte 東', '東', 3],
    ['four-byte 😀 (a surrogate pair)', '😀', 4],
  ])('a long %s name is cut at a code point, the extension kept', (_what, ch, width) => {
    const name = stored(`${ch.repeat(300)}.jpeg`);
    const room = 255 - '.jpeg'.length;
    expect(name).toBe(`${ch.repeat(Math.floor(room / width))}.jpeg`);
    expect(bytes(name)).toBeLessThanOrEqual(255);
    expect(name.includes('\ufffd')).toBe(false);
  });

  it('a long name without an extension is cut, then loses a trailing dot or space', () => {
    expect(stored(`${'a'.repeat(254)}.b${'c'.repeat(30)}`)).toBe('a'.repeat(254));
    expect(stored(`${'a'.repeat(254)} ${'c'.repeat(30)}`)).toBe('a'.repeat(254));
  });

  it('a name of a million characters', () => {
    const name = stored(`${'ä'.repeat(1_000_000)}.jpeg`);
    expect(bytes(name)).toBe(255);
  });
});
