/**
 * One zip entry of a workbook as a stream of XML events: the entry's bytes from where its
 * directory says (zip-directory.ts), through node:zlib's inflateRaw, decoded as UTF-8 and fed to
 * saxes, which never fetches anything. xlsx-guard.ts has already judged every part (sizes,
 * ratios, no DOCTYPE); a DOCTYPE met here all the same is refused, never resolved, and more bytes
 * than the directory declared stop the read. The caller's handlers run as saxes parses a chunk;
 * the generator yields after each chunk so the caller can hand on what the handlers collected.
 */
import { createReadStream } from 'node:fs';
import { createInflateRaw } from 'node:zlib';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { dataOffset, type ZipEntry } from './zip-directory.js';

export interface XmlHandlers {
  /** An element opens; `name` without its namespace prefix. */
  open(name: string, attributes: Record<string, string>): void;
  close(name: string): void;
  text(text: string): void;
}

export class XmlPartError extends Error {}

const local = (name: string) => {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
};

/** Parses `entry` with `handlers`, yielding once after each inflated chunk. */
export async function* parseEntry(
  file: string,
  entry: ZipEntry,
  handlers: XmlHandlers,
): AsyncGenerator<void> {
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('doctype', () => {
    throw new XmlPartError(`${entry.name} has a DOCTYPE`);
  });
  parser.on('opentag', (tag: SaxesTagPlain) =>
    handlers.open(local(tag.name), tag.attributes as Record<string, string>),
  );
  parser.on('closetag', (tag: SaxesTagPlain) => handlers.close(local(tag.name)));
  parser.on('text', handlers.text);
  parser.on('cdata', handlers.text);
  if (entry.compressed === 0) return;
  const start = await dataOffset(file, entry);
  const raw = createReadStream(file, { start, end: start + entry.compressed - 1 });
  const source = entry.method === 8 ? raw.pipe(createInflateRaw()) : raw;
  raw.on('error', (err) => source.destroy(err));
  source.setEncoding('utf8');
  let seen = 0;
  try {
    for await (const chunk of source as AsyncIterable<string>) {
      // UTF-8 is at least one byte a character: a string longer than the declared size is over.
      seen += chunk.length;
      if (seen > entry.uncompressed) {
        throw new XmlPartError(`${entry.name} inflates to more than its directory declares`);
      }
      parser.write(chunk);
      yield;
    }
    parser.close();
  } finally {
    raw.destroy();
    source.destroy();
  }
}

/** Parses a whole entry (shared strings, styles): the handlers keep what they need. */
export async function parseWholeEntry(file: string, entry: ZipEntry, handlers: XmlHandlers) {
  for await (const _ of parseEntry(file, entry, handlers));
}
