/**
 * The one multipart parser both users build (http/body.ts form bodies, media/receive.ts
 * uploads): @fastify/busboy, with the two rules busboy 1.x applied that the fork (grown from
 * busboy 0.3's parser) does not, so a body means the same to us as it did before the switch:
 *
 * - A part header carrying a raw control byte (a file name "bad\0.txt", a Content-Type) makes
 *   the whole body malformed. The fork hands such values on; we refuse them as 1.x did, before
 *   the fork sees the header (our listener runs first), so no 'file' or 'field' carries them.
 * - A part is a file only when it has a non-empty file name as sent: filename="" (or an
 *   application/octet-stream part without one) comes as a field, as in 1.x, so the caller can
 *   name it as what it is ("the file part has no file name"), while filename=".." is a file
 *   whose name is empty once its directories are stripped. So the fork is always given
 *   preservePath (it would strip before deciding) and callers strip with `baseName`.
 *
 * Limits in the fork are counted as exceeded, not reached: `parts: 2` refuses the third part,
 * `fileSize: n` lets exactly n bytes through and refuses the n+1st.
 */
import { Busboy, type BusboyConfig, type BusboyInstance } from '@fastify/busboy';

export type MultipartParser = BusboyInstance;

/** CTLs other than HTAB, which RFC 9110 allows in a field value (as 1.x's header parser did). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** Dicer's part stream as the fork's internals emit it: header names map to their values. */
interface PartStream {
  on(event: 'header', listener: (header: Record<string, string[]>) => void): unknown;
}
interface Internals {
  _parser?: { parser?: { prependListener(event: 'part', fn: (part: PartStream) => void): void } };
}

const hasControlByte = (header: Record<string, string[]>) =>
  Object.entries(header).some(
    ([name, values]) => CONTROL.test(name) || values.some((v) => CONTROL.test(v)),
  );

/**
 * Throws (as the fork does for a missing boundary or an unsupported type) when the body cannot
 * be parsed at all; the caller answers that as a malformed body.
 */
export function multipartParser(
  config: Omit<BusboyConfig, 'isPartAFile' | 'preservePath'>,
): MultipartParser {
  const parser = Busboy({
    ...config,
    preservePath: true,
    isPartAFile: (_name, _type, fileName) => fileName !== undefined && fileName !== '',
  });
  const dicer = (parser as unknown as Internals)._parser?.parser;
  if (!dicer) {
    // Only a urlencoded body has no part headers; a multipart one without our check must not
    // be parsed (a fork upgrade that moved its internals is caught here, by every test).
    if (/^multipart\//i.test(config.headers['content-type'])) {
      throw new Error('the multipart parser cannot be checked (unexpected @fastify/busboy)');
    }
    return parser;
  }
  dicer.prependListener('part', (part) => {
    part.on('header', (header) => {
      if (!hasControlByte(header)) return;
      // The fork's own listener runs next on this same object: without a Content-Disposition it
      // skips the part, so no 'file' or 'field' event ever carries the bad value.
      for (const name of Object.keys(header)) delete header[name];
      parser.emit('error', new Error('a part header holds a raw control byte'));
    });
  });
  return parser;
}

/**
 * A sent file name without its directories (either slash), '' for '.' and '..': what busboy's
 * `preservePath: false` did. Sanitising the name is still the caller's job.
 */
export function baseName(fileName: string): string {
  const last = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1);
  return last === '.' || last === '..' ? '' : last;
}
