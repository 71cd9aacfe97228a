import { describe, expect, it } from 'vitest';
import { baseName, multipartParser } from '../../../src/server/multipart.js';

const boundary = 'xBOUNDARYx';

/** One part with the given raw header lines (bytes as written), then the closing delimiter. */
const body = (headerLines: Buffer[], data = 'x') =>
  Buffer.concat([
    Buffer.from(`--${boundary}\r\n`),
    ...headerLines.flatMap((line) => [line, Buffer.from('\r\n')]),
    Buffer.from(`\r\n${data}\r\n--${boundary}--\r\n`),
  ]);

interface Seen {
  error?: string;
  fields: [string, string][];
  files: [string, string, string][];
}

/** Parses a whole body; settles on the first error or at the end. */
function parse(raw: Buffer): Promise<Seen> {
  return new Promise((resolve) => {
    const seen: Seen = { fields: [], files: [] };
    const parser = multipartParser({
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      limits: { files: 5, fields: 5, parts: 5 },
    });
    parser.on('field', (name, value) => seen.fields.push([name, value]));
    parser.on('file', (name, stream, fileName, _encoding, mimeType) => {
      seen.files.push([name, fileName, mimeType]);
      stream.resume();
    });
    parser.on('error', (err) => resolve({ ...seen, error: (err as Error).message }));
    parser.on('finish', () => resolve(seen));
    parser.end(raw);
  });
}

const line = (...pieces: (string | number)[]) =>
  Buffer.concat(pieces.map((p) => (typeof p === 'number' ? Buffer.from([p]) : Buffer.from(p))));

describe('the multipart parser (@fastify/busboy with the rules busboy 1.x had)', () => {
  it('refuses a raw control byte in any part header value, before a part carries it', async () => {
    const disposition = 'Content-Disposition: form-data; name="file"; filename="a.txt"';
    const cases = [
      [line('Content-Disposition: form-data; name="file"; filename="bad', 0, '.txt"')],
      [line(disposition), line('Content-Type: image/png', 0x07)],
      [line(disposition), line('Content-Type: text/plain; charset=utf', 0x1b, '8')],
      [line(disposition), line('X-Note: a', 0x7f, 'b')],
      [line('Content-Disposition: form-data; name="fie', 0x01, 'ld"')],
    ];
    for (const headers of cases) {
      const seen = await parse(body(headers));
      expect(seen.error, headers.join('|')).toMatch(/control byte/);
      expect(seen.files, headers.join('|')).toEqual([]);
      expect(seen.fields, headers.join('|')).toEqual([]);
    }
  });

  it('takes a tab in a header value and percent-encoded control bytes (the name is sanitised later)', async () => {
    const tab = await parse(
      body([line('Content-Disposition: form-data; name="f";\tfilename="a.txt"')]),
    );
    expect(tab).toEqual({ fields: [], files: [['f', 'a.txt', 'text/plain']] });
    const encoded = await parse(
      body([line('Content-Disposition: form-data; name="f"; filename*=UTF-8\'\'nul%00.txt')]),
    );
    expect(encoded).toEqual({ fields: [], files: [['f', 'nul\0.txt', 'text/plain']] });
  });

  it('reports filename="" as a field, as 1.x did, but ".." as a file named after stripping', async () => {
    const empty = await parse(
      body([line('Content-Disposition: form-data; name="file"; filename=""')]),
    );
    expect(empty).toEqual({ fields: [['file', 'x']], files: [] });
    const octets = await parse(
      body([
        line('Content-Disposition: form-data; name="file"'),
        line('Content-Type: application/octet-stream'),
      ]),
    );
    expect(octets).toEqual({ fields: [['file', 'x']], files: [] });
    const dots = await parse(
      body([line('Content-Disposition: form-data; name="file"; filename=".."')]),
    );
    expect(dots.files.map(([, fileName]) => baseName(fileName))).toEqual(['']);
  });

  it('baseName strips directories of either slash, as preservePath: false did', () => {
    expect(baseName('../../x')).toBe('x');
    expect(baseName('..\\..\\evil.txt')).toBe('evil.txt');
    expect(baseName('a/.')).toBe('');
    expect(baseName('Grüße.txt')).toBe('Grüße.txt');
  });
});
