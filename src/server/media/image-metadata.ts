/**
 * What a JPEG, PNG or WebP carries besides its picture, read from the container's own
 * structure (segments, chunks) rather than asked of a decoder, which reports only what it
 * understands: an allow-list, so only the parts that hold pixels, colour and layout pass, and
 * everything else is named — EXIF (with what in it gives a person away: the GPS position,
 * serial numbers, maker notes), XMP, IPTC, comments and text, a second image after the first
 * (a phone's MPF depth or gain map, each with EXIF of its own), data after the end.
 */
import { inflateSync } from 'node:zlib';
import { exifFacts, xmpFacts } from './metadata-facts.js';

export type ScannedFormat = 'jpg' | 'png' | 'webp';

const SCANNED: Record<string, ScannedFormat> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
};
/** The format whose structure this reads, by sniffed MIME type; undefined for any other. */
export const scannedFormatOf = (mimeType: string): ScannedFormat | undefined => SCANNED[mimeType];

/**
 * Files up to this size are read whole to be scanned (an avatar's images are far smaller, a
 * phone photo is 2–15 MB); a bigger one is not scanned (an avatar refuses it, a stripping
 * upload re-encodes it).
 */
export const SCAN_MAX_BYTES = 32 * 1024 * 1024;

const MALFORMED = 'a structure that cannot be read (a damaged file)';
const TRAILING = "data after the image's end";

/** What `bytes` carries besides the picture, named for a person; empty when nothing. */
export function metadataIn(bytes: Buffer, format: ScannedFormat): string[] {
  const found = new Set<string>();
  try {
    if (format === 'jpg') scanJpeg(bytes, found);
    else if (format === 'png') scanPng(bytes, found);
    else scanWebp(bytes, found);
  } catch {
    found.add(MALFORMED);
  }
  return [...found];
}

const startsWith = (data: Buffer, text: string) =>
  data.subarray(0, text.length).equals(Buffer.from(text, 'latin1'));

/** JPEG markers that hold the picture: SOFn, DHT, DAC, DQT, DRI, DNL, DHP, EXP. */
const JPEG_STRUCTURE = new Set([
  0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0xdb,
  0xdc, 0xdd, 0xde, 0xdf,
]);

function jpegSegment(marker: number, data: Buffer): string | undefined {
  if (JPEG_STRUCTURE.has(marker)) return undefined;
  if (marker === 0xe0 && startsWith(data, 'JFIF\0')) return undefined;
  if (marker === 0xe2 && startsWith(data, 'ICC_PROFILE\0')) return undefined;
  if (marker === 0xee && startsWith(data, 'Adobe')) return undefined;
  if (marker === 0xe1 && startsWith(data, 'Exif\0\0')) return exifFacts(data.subarray(6));
  if (marker === 0xe1 && startsWith(data, 'http://ns.adobe.com/')) return xmpFacts(data);
  if (marker === 0xed) return 'IPTC';
  if (marker === 0xfe) return 'a comment';
  if (marker === 0xe2 && startsWith(data, 'MPF\0')) return 'further images (MPF)';
  if (marker >= 0xe0 && marker <= 0xef) return `an APP${marker - 0xe0} segment`;
  return `a segment of its own (0xFF${marker.toString(16).toUpperCase()})`;
}

function scanJpeg(b: Buffer, found: Set<string>) {
  if (b[0] !== 0xff || b[1] !== 0xd8) throw new Error('no SOI');
  let i = 2;
  for (;;) {
    if (b[i] !== 0xff) throw new Error('no marker');
    while (b[i] === 0xff) i++;
    const marker = b[i++];
    if (marker === undefined) throw new Error('cut short');
    if (marker === 0xd9) {
      if (i < b.length) found.add(TRAILING);
      return;
    }
    const length = b.readUInt16BE(i);
    if (length < 2 || i + length > b.length) throw new Error('segment past the end');
    const data = b.subarray(i + 2, i + length);
    i += length;
    if (marker === 0xda) {
      // The entropy-coded scan runs to the next marker that is neither a stuffed 0x00 nor RSTn.
      while (i < b.length - 1 && !(b[i] === 0xff && b[i + 1] !== 0 && !isRst(b[i + 1]!))) i++;
      if (i >= b.length - 1) throw new Error('scan cut short');
      continue;
    }
    const what = jpegSegment(marker, data);
    if (what) found.add(what);
  }
}

const isRst = (m: number) => m >= 0xd0 && m <= 0xd7;

/** PNG chunks of the picture, its colour and its animation (APNG). */
const PNG_STRUCTURE = new Set(
  'IHDR PLTE IDAT IEND tRNS cHRM gAMA iCCP sBIT sRGB cICP mDCV cLLI bKGD hIST pHYs sPLT acTL fcTL fdAT'.split(
    ' ',
  ),
);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function scanPng(b: Buffer, found: Set<string>) {
  if (!b.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('no signature');
  let i = 8;
  for (;;) {
    const length = b.readUInt32BE(i);
    const type = b.toString('latin1', i + 4, i + 8);
    const end = i + 12 + length;
    if (end > b.length) throw new Error('chunk past the end');
    const data = b.subarray(i + 8, i + 8 + length);
    i = end;
    if (type === 'IEND') {
      if (i < b.length) found.add(TRAILING);
      return;
    }
    if (PNG_STRUCTURE.has(type)) continue;
    if (type === 'eXIf') found.add(exifFacts(data));
    else if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
      const { keyword, text } = pngText(type, data);
      // libpng keeps XMP in a text chunk of this keyword (zTXt: compressed).
      found.add(keyword === 'XML:com.adobe.xmp' ? xmpFacts(text) : `text (${keyword})`);
    } else found.add(`a ${type} chunk`);
  }
}

/** A PNG text chunk's keyword and text, inflated (up to 1 MiB) where it is compressed. */
function pngText(type: string, data: Buffer): { keyword: string; text: Buffer } {
  const nul = data.indexOf(0);
  if (nul < 0) return { keyword: data.toString('latin1'), text: Buffer.alloc(0) };
  const keyword = data.toString('latin1', 0, nul);
  let text = data.subarray(nul + 1);
  let compressed = type === 'zTXt';
  if (type === 'zTXt') text = text.subarray(1);
  if (type === 'iTXt') {
    compressed = text[0] === 1;
    // flag, method, language tag\0, translated keyword\0, then the text.
    const language = text.indexOf(0, 2);
    const translated = text.indexOf(0, language + 1);
    text = text.subarray(translated + 1);
  }
  if (!compressed) return { keyword, text };
  try {
    return { keyword, text: inflateSync(text, { maxOutputLength: 1024 * 1024 }) };
  } catch {
    return { keyword, text: Buffer.alloc(0) };
  }
}

/** WebP (RIFF) chunks of the picture, its alpha, colour profile and animation. */
const WEBP_STRUCTURE = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP']);

function scanWebp(b: Buffer, found: Set<string>) {
  if (!startsWith(b, 'RIFF') || b.toString('latin1', 8, 12) !== 'WEBP') throw new Error('no RIFF');
  const end = 8 + b.readUInt32LE(4);
  if (end > b.length) throw new Error('RIFF past the end');
  if (end < b.length) found.add(TRAILING);
  let i = 12;
  while (i < end) {
    const type = b.toString('latin1', i, i + 4);
    const length = b.readUInt32LE(i + 4);
    const data = b.subarray(i + 8, i + 8 + length);
    if (i + 8 + length > end) throw new Error('chunk past the end');
    i += 8 + length + (length % 2);
    if (WEBP_STRUCTURE.has(type)) continue;
    if (type === 'EXIF')
      found.add(exifFacts(startsWith(data, 'Exif\0\0') ? data.subarray(6) : data));
    else if (type === 'XMP ') found.add(xmpFacts(data));
    else found.add(`a ${type.trim()} chunk`);
  }
}
