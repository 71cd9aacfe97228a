/**
 * What a file is, from its bytes (file-type's magic numbers, then a look at the first 4 KiB for
 * SVG, HTML and plain text). The client's Content-Type and metaData are never trusted for this.
 */
import { open } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import type { MediumType } from '../../contract/medium.js';

export interface Kind {
  type: MediumType;
  mimeType: string;
  /** The format's usual extension (`png`, `jpg`, `mp4`…); '' when the bytes do not say. */
  format: string;
}

const HEAD_BYTES = 4096;

function typeOf(mimeType: string): MediumType {
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType === 'application/pdf') return 'pdf';
  return 'raw';
}

async function head(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Markup and text, which have no magic number. */
function sniffText(bytes: Buffer): Omit<Kind, 'type'> | undefined {
  if (bytes.length === 0 || bytes.includes(0)) return undefined;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  // Skip a BOM, the XML declaration, comments and a doctype to find the first element.
  const start = text
    .replace(/^\uFEFF/, '')
    .replace(/^(\s*(<\?[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE\s+svg[^>]*>))*\s*/i, '');
  if (/^<svg[\s>/]/i.test(start)) return { mimeType: 'image/svg+xml', format: 'svg' };
  if (/^<(!doctype\s+html|html|head|body|script|iframe)[\s>]/i.test(start)) {
    return { mimeType: 'text/html', format: 'html' };
  }
  if (/^<\?xml/i.test(text.trimStart())) return { mimeType: 'application/xml', format: 'xml' };
  // Text: valid UTF-8 (when the head was cut, a split character at its end is fine).
  const whole = bytes.length < HEAD_BYTES ? bytes : bytes.subarray(0, bytes.length - 3);
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(whole);
  } catch {
    return undefined;
  }
  return { mimeType: 'text/plain', format: 'txt' };
}

export async function sniffType(path: string): Promise<Kind> {
  const found = await fileTypeFromFile(path);
  if (found && found.mime !== 'application/xml') {
    return { type: typeOf(found.mime), mimeType: found.mime, format: found.ext };
  }
  const text = sniffText(await head(path));
  if (text) return { type: typeOf(text.mimeType), ...text };
  return { type: 'raw', mimeType: 'application/octet-stream', format: '' };
}
