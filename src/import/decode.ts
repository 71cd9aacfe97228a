/**
 * Bytes → text for CSV files. UTF-8 (BOM or not) is the default and is checked strictly: a
 * file from Excel or an HR system in windows-1252 fails at its first bad byte, with the line
 * and column, instead of importing "MÃ¼ller". Other encodings go through TextDecoder (full ICU).
 */
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { ImportError, importUsageError } from './errors.js';

/** The encodings named in help texts; any WHATWG label TextDecoder knows also works. */
export const ENCODINGS = ['utf-8', 'windows-1252', 'latin1', 'utf-16le'] as const;

export interface DecodeOptions {
  file: string;
  /** An explicit encoding; without it a BOM decides, else UTF-8. */
  encoding?: string;
  /** Called with a hint that is worth a line on stderr. */
  onWarning?: (message: string) => void;
}

/** The TextDecoder label for a user's `--encoding`, or a usage error naming the usual ones. */
export function encodingLabel(flag: string): string {
  try {
    return new TextDecoder(flag).encoding;
  } catch {
    throw importUsageError(
      `--encoding: unknown encoding '${flag}'; use one of ${ENCODINGS.join(', ')}`,
    );
  }
}

function sniff(head: Buffer): string {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

/** Length of the UTF-8 sequence a lead byte starts (0 = not a lead byte). */
function sequenceLength(b: number): number {
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/** Where a trailing, still incomplete sequence starts (buf.length when there is none). */
function completeUpTo(buf: Buffer): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const b = buf[buf.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const len = sequenceLength(b);
    return len > back ? buf.length - back : buf.length;
  }
  return buf.length;
}

/** Offset of the first byte that is not valid UTF-8 (only called once one is known to exist). */
function firstInvalid(buf: Buffer): number {
  let i = 0;
  while (i < buf.length) {
    const len = sequenceLength(buf[i]!);
    if (len === 0 || i + len > buf.length || !isUtf8(buf.subarray(i, i + len))) return i;
    i += len;
  }
  return i;
}

function hint(bad: number, nul: boolean): string {
  if (nul) return 'a NUL byte; the file looks like UTF-16 without a BOM: try --encoding utf-16le';
  const hex = bad.toString(16).toUpperCase().padStart(2, '0');
  return `byte 0x${hex} is not valid UTF-8; the file is probably windows-1252/latin1 (Excel, many HR systems): try --encoding windows-1252`;
}

/** The source with a first chunk long enough to hold any BOM. */
async function* withHead(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0);
  let started = false;
  for await (const chunk of source) {
    if (started) yield chunk;
    else {
      head = Buffer.concat([head, chunk]);
      started = head.length >= 4;
      if (started) yield head;
    }
  }
  if (!started && head.length > 0) yield head;
}

/** Yields the file's text chunk by chunk; throws a ImportError naming line and column on bad bytes. */
export async function* decodeText(
  source: AsyncIterable<Buffer>,
  opts: DecodeOptions,
): AsyncGenerator<string> {
  let decoder: TextDecoder | undefined;
  let carry: Buffer = Buffer.alloc(0);
  let line = 1;
  let column = 1;
  const advance = (text: string) => {
    const nl = text.lastIndexOf('\n');
    if (nl < 0) column += text.length;
    else {
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) line++;
      column = text.length - nl;
    }
  };
  for await (const chunk of withHead(source)) {
    if (!decoder) {
      const label = opts.encoding ? encodingLabel(opts.encoding) : sniff(chunk);
      decoder = new TextDecoder(label);
      if (opts.encoding && label !== 'utf-8' && chunk.some((b) => b >= 0x80) && isUtf8(chunk)) {
        opts.onWarning?.(
          `${opts.file} looks like UTF-8, but --encoding ${opts.encoding} reads it as ${label}: accents may come out garbled ("Ã©" for "é")`,
        );
      }
    }
    if (decoder.encoding !== 'utf-8') {
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
      continue;
    }
    const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const cut = completeUpTo(data);
    const whole = data.subarray(0, cut);
    // NUL never occurs in a text CSV, but everywhere in UTF-16 read as UTF-8.
    const nul = whole.indexOf(0);
    const valid = isUtf8(whole);
    if (!valid || nul >= 0) {
      const bad = valid ? nul : Math.min(firstInvalid(whole), nul < 0 ? Infinity : nul);
      advance(whole.toString('utf8', 0, bad));
      throw new ImportError(
        `${opts.file} line ${line}, column ${column}: ${hint(whole[bad]!, whole[bad] === 0)}`,
      );
    }
    carry = Buffer.from(data.subarray(cut));
    const text = decoder.decode(whole, { stream: true });
    advance(text);
    if (text) yield text;
  }
  if (carry.length > 0) {
    throw new ImportError(
      `${opts.file} line ${line}, column ${column}: the file ends inside a UTF-8 character; ${hint(carry[0]!, false)}`,
    );
  }
  const rest = decoder?.decode() ?? '';
  if (rest) yield rest;
}
