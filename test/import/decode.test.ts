import { describe, expect, it } from 'vitest';
import { decodeText, likelyEncoding, plausibility } from '../../src/import/decode.js';

async function decode(chunks: Buffer[], encoding?: string, warnings: string[] = []) {
  async function* source() {
    yield* chunks;
  }
  let text = '';
  for await (const t of decodeText(source(), {
    file: 'f.csv',
    encoding,
    onWarning: (w) => warnings.push(w),
  })) {
    text += t;
  }
  return text;
}

/** Splits a buffer into chunks of `size` bytes (to cut multi-byte characters apart). */
const chunked = (buf: Buffer, size: number) =>
  Array.from({ length: Math.ceil(buf.length / size) }, (_, i) =>
    buf.subarray(i * size, (i + 1) * size),
  );

describe('decodeText', () => {
  it('reads UTF-8 with and without a BOM, even with characters split across chunks', async () => {
    const text = 'a,b\nÄrger,李\n😀,é\n';
    const bytes = Buffer.from(text);
    for (const size of [1, 2, 3, 5, 1000]) {
      expect(await decode(chunked(bytes, size))).toBe(text);
      expect(
        await decode(chunked(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]), size)),
      ).toBe(text);
    }
  });

  it('names line and column of the first byte that is not UTF-8, and suggests --encoding', async () => {
    const bytes = Buffer.from('a,b\nc,d\nFran\xe7ois,x\n', 'latin1');
    for (const size of [1, 4, 1000]) {
      await expect(decode(chunked(bytes, size))).rejects.toThrow(
        /^f\.csv line 3, column 5: byte 0xE7 is not valid UTF-8.*--encoding windows-1252/,
      );
    }
  });

  it('reports a file that ends inside a UTF-8 character', async () => {
    await expect(decode([Buffer.from([0x61, 0x0a, 0xe2, 0x82])])).rejects.toThrow(
      /line 2, column 1: the file ends inside a UTF-8 character/,
    );
  });

  it('decodes windows-1252 and latin1 when asked', async () => {
    const bytes = Buffer.from([0x46, 0x72, 0x61, 0x6e, 0xe7, 0x6f, 0x69, 0x73, 0x80]);
    expect(await decode([bytes], 'windows-1252')).toBe('François€');
    expect(await decode([bytes], 'latin1')).toBe('François€'); // WHATWG: latin1 is windows-1252
  });

  it('detects UTF-16LE by its BOM and reads it whatever the chunking', async () => {
    const bytes = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('id\tname\n1\tŁukasz 李\n', 'utf16le'),
    ]);
    for (const size of [1, 3, 1000])
      expect(await decode(chunked(bytes, size))).toBe('id\tname\n1\tŁukasz 李\n');
  });

  it('suggests utf-16le for UTF-16 without a BOM (NUL bytes)', async () => {
    await expect(decode([Buffer.from('id,name\n', 'utf16le')])).rejects.toThrow(
      /line 1, column 2: a NUL byte.*--encoding utf-16le/,
    );
  });

  it('warns when a UTF-8 file is read as windows-1252', async () => {
    const warnings: string[] = [];
    expect(await decode([Buffer.from('é\n')], 'windows-1252', warnings)).toBe('Ã©\n');
    expect(warnings[0]).toMatch(/looks like UTF-8/);
  });

  it('refuses an unknown encoding as a usage error', async () => {
    await expect(decode([Buffer.from('a')], 'klingon')).rejects.toMatchObject({ kind: 'usage' });
  });
});

describe('telling Mac Roman from windows-1252', () => {
  const encode = (text: string, encoding: string) => {
    const table = new Map(
      Array.from({ length: 256 }, (_, b) => [
        new TextDecoder(encoding).decode(Uint8Array.of(b), { stream: true }),
        b,
      ]),
    );
    return Buffer.from([...text].map((c) => table.get(c)!));
  };
  const names = 'Jürgen Müller;Straße;Zoë;François;Ærø;Ångström;Çelik;Björn Groß\n';

  it('suggests the encoding whose reading looks like names', async () => {
    await expect(decode([encode(names, 'macintosh')])).rejects.toThrow(
      /probably Mac Roman .*'Jürgen' where windows-1252 would read 'JŸrgen': try --encoding macintosh/,
    );
    await expect(decode([encode(names, 'windows-1252')])).rejects.toThrow(
      /probably windows-1252.*--encoding windows-1252/,
    );
  });

  it('scores each reading by the characters it produces', () => {
    expect(plausibility('Jürgen Müller')).toBeGreaterThan(0);
    expect(plausibility('JŸrgen MŸller')).toBeLessThan(0);
    expect(plausibility('J¸rgen M¸ller Stra§e')).toBeLessThan(0);
    expect(likelyEncoding(encode(names, 'macintosh')).best.encoding).toBe('macintosh');
    expect(likelyEncoding(encode(names, 'windows-1252')).best.encoding).toBe('windows-1252');
  });

  it('warns when the --encoding given reads worse than the other', async () => {
    const warnings: string[] = [];
    const text = await decode([encode(names, 'macintosh')], 'windows-1252', warnings);
    expect(text.startsWith('JŸrgen')).toBe(true);
    expect(warnings).toEqual([
      expect.stringMatching(
        /--encoding windows-1252 reads 'JŸrgen', macintosh reads 'Jürgen': try --encoding macintosh/,
      ),
    ]);
    const fine: string[] = [];
    await decode([encode(names, 'macintosh')], 'macintosh', fine);
    expect(fine).toEqual([]);
  });
});
