/**
 * Bytes → text for CSV files. UTF-8 (BOM or not) is the default and is checked strictly: a
 * file from Excel or an HR system in windows-1252 fails at its first bad byte, with the line
 * and column, instead of importing "MÃ¼ller". Other encodings go through TextDecoder (full ICU).
 *
 * Which single-byte encoding to suggest is told by the text each produces: Mac Excel's Mac Roman
 * read as windows-1252 gives "JŸrgen MŸller" (a capital inside a word), windows-1252 read as Mac
 * Roman gives "J¸rgen M¸ller" (a symbol inside a word); the reading with fewer such oddities wins.
 */
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { ImportError, importUsageError } from './errors.js';

/** The encodings named in help texts; any WHATWG label TextDecoder knows also works. */
export const ENCODINGS = ['utf-8', 'windows-1252', 'macintosh', 'latin1', 'utf-16le'] as const;

/** The single-byte encodings that files from Windows and Mac spreadsheets come in. */
const SINGLE_BYTE = ['windows-1252', 'macintosh'] as const;

const LETTER = /\p{L}/u;
const LOWER = /\p{Ll}/u;
const UPPER = /\p{Lu}/u;

/**
 * How plausible a text is as names and words: each non-ASCII character counts +1 when it is a
 * lower-case letter, or a capital starting a word; -1 when it is a capital inside a word
 * ("JŸrgen", "ZoÎ"), a symbol or punctuation touching a letter ("Stra§e", "J¸rgen"), or a control.
 */
export function plausibility(text: string): number {
  let score = 0;
  const chars = [...text];
  chars.forEach((c, i) => {
    if (c.charCodeAt(0) < 0x80) return;
    const before = chars[i - 1] ?? ' ';
    const after = chars[i + 1] ?? ' ';
    if (LOWER.test(c)) score++;
    else if (UPPER.test(c))
      score += LOWER.test(before) || (LETTER.test(before) && LOWER.test(after)) ? -1 : 1;
    else if (LETTER.test(c)) score++;
    else if (/\p{Cc}/u.test(c) || LETTER.test(before) || LETTER.test(after)) score--;
  });
  return score;
}

/** The first word with a non-ASCII character, to show what a reading gives. */
function sampleWord(text: string): string {
  const m = /[^\s,;"]*[^\p{ASCII}][^\s,;"]*/u.exec(text);
  return m ? m[0].slice(0, 40) : '';
}

/** Which single-byte encoding reads these bytes more plausibly, and how each reads. */
export function likelyEncoding(bytes: Uint8Array) {
  const readings = SINGLE_BYTE.map((encoding) => {
    // ({stream: true}: Node 20's one-shot windows-1252 decode maps 0x80-0x9F as latin1 does.)
    const text = new TextDecoder(encoding).decode(bytes, { stream: true });
    return { encoding, score: plausibility(text), sample: sampleWord(text) };
  });
  const [windows, mac] = readings as [(typeof readings)[0], (typeof readings)[0]];
  return { best: mac.score > windows.score ? mac : windows, windows, mac };
}

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

function hint(bad: number, nul: boolean, bytes?: Uint8Array): string {
  if (nul) return 'a NUL byte; the file looks like UTF-16 without a BOM: try --encoding utf-16le';
  const hex = bad.toString(16).toUpperCase().padStart(2, '0');
  const likely = bytes ? likelyEncoding(bytes) : undefined;
  if (likely?.best.encoding === 'macintosh') {
    return `byte 0x${hex} is not valid UTF-8; the file is probably Mac Roman (Excel on a Mac, "CSV (Macintosh)"), which reads '${likely.mac.sample}' where windows-1252 would read '${likely.windows.sample}': try --encoding macintosh`;
  }
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
  let afterCR = false;
  // Lines end with LF, CRLF or a lone CR (Mac Excel), as the CSV reader counts them.
  const advance = (text: string) => {
    if (!text.includes('\r')) {
      const nl = text.lastIndexOf('\n');
      if (nl < 0) column += text.length;
      else {
        for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
          if (!(i === 0 && afterCR)) line++;
        }
        column = text.length - nl;
      }
      if (text.length > 0) afterCR = false;
      return;
    }
    for (const ch of text) {
      if (ch === '\n' && afterCR) {
        afterCR = false;
        continue;
      }
      afterCR = ch === '\r';
      if (ch === '\r' || ch === '\n') {
        line++;
        column = 1;
      } else column++;
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
      } else if ((SINGLE_BYTE as readonly string[]).includes(label)) {
        // windows-1252 asked for a Mac Roman file (or the reverse) silently gives "JŸrgen".
        const likely = likelyEncoding(chunk);
        const asked = label === 'macintosh' ? likely.mac : likely.windows;
        if (likely.best.encoding !== label && likely.best.score > asked.score) {
          opts.onWarning?.(
            `${opts.file}: --encoding ${opts.encoding} reads '${asked.sample}', ${likely.best.encoding} reads '${likely.best.sample}': try --encoding ${likely.best.encoding}`,
          );
        }
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
        `${opts.file} line ${line}, column ${column}: ${hint(whole[bad]!, whole[bad] === 0, whole)}`,
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
