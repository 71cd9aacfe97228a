/**
 * One zip entry of a workbook as a stream of XML events: the entry's bytes through the guard's
 * inflateEntry (xlsx-guard.ts: the directory's size enforced as it inflates, UTF-8 only),
 * decoded and fed to saxes, which never fetches anything. A DOCTYPE is refused, never resolved,
 * with the guard's own message. The caller's handlers run as saxes parses a chunk; the generator
 * yields after each chunk so the caller can hand on what the handlers collected.
 */
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { doctypeRefusal, inflateEntry } from './xlsx-guard.js';
import type { ZipEntry } from './zip-directory.js';

export interface XmlHandlers {
  /** An element opens; `name` without its namespace prefix. */
  open(name: string, attributes: Record<string, string>): void;
  close(name: string): void;
  text(text: string): void;
}

const local = (name: string) => {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
};

/** Parses `entry` with `handlers`, yielding once after each inflated chunk; `signal` stops it. */
export async function* parseEntry(
  file: string,
  entry: ZipEntry,
  handlers: XmlHandlers,
  signal?: AbortSignal,
): AsyncGenerator<void> {
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('doctype', () => {
    throw doctypeRefusal(file, entry);
  });
  parser.on('opentag', (tag: SaxesTagPlain) =>
    handlers.open(local(tag.name), tag.attributes as Record<string, string>),
  );
  parser.on('closetag', (tag: SaxesTagPlain) => handlers.close(local(tag.name)));
  parser.on('text', handlers.text);
  parser.on('cdata', handlers.text);
  if (entry.compressed === 0) return;
  const utf8 = new StringDecoder('utf8');
  for await (const chunk of inflateEntry(file, entry, signal)) {
    parser.write(utf8.write(chunk));
    yield;
  }
  parser.write(utf8.end());
  parser.close();
}

/** Parses a whole entry (shared strings, styles): the handlers keep what they need. */
export async function parseWholeEntry(
  file: string,
  entry: ZipEntry,
  handlers: XmlHandlers,
  signal?: AbortSignal,
) {
  for await (const _ of parseEntry(file, entry, handlers, signal));
}
