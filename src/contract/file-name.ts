/**
 * A file name from elsewhere (an upload's part, a medium's name on download) made safe to use
 * as one path segment: no directories, no control or bidi characters (which make `gpj.exe`
 * look like `exe.jpg`), never empty, `.` or `..`, and at most 255 UTF-8 bytes with a short
 * extension kept. The service stores such a name (it becomes the last segment of the publicID
 * and of CDN paths); the CLI creates a local file with it, which also needs `local`.
 */

const MAX_BYTES = 255;
/** C0/C1 controls and DEL, plus the bidi marks, embeddings, overrides and isolates. */
const UNWANTED = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const WINDOWS_RESERVED = /[<>:"|?*]/g;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i;

export interface FileNameRules {
  /** The name when nothing usable is left. */
  fallback: string;
  /**
   * For a file created on this machine: no leading dot either (a hidden file), and none of the
   * characters or device names (`CON`, `LPT1`) Windows refuses.
   */
  local?: boolean;
}

export function safeFileName(raw: string, { fallback, local = false }: FileNameRules): string {
  let name = raw.slice(Math.max(raw.lastIndexOf('/'), raw.lastIndexOf('\\')) + 1);
  // Normalised after the removal, which can bring a letter and its accent together.
  name = name.replace(UNWANTED, '').normalize('NFC');
  if (local) name = name.replace(WINDOWS_RESERVED, '_');
  if (local) name = name.replace(/^[\s.]+/, '');
  // Windows drops trailing dots and spaces; a name of only dots is a path trick.
  name = stripEnd(name.trimStart());
  if (name === '') return fallback;
  if (local && WINDOWS_DEVICE.test(name)) name = `_${name}`;
  if (utf8Length(name) <= MAX_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  const stem = name.slice(0, name.length - ext.length);
  const cut = stem.slice(0, utf8Prefix(stem, MAX_BYTES - utf8Length(ext)));
  // A cut without an extension can end in a dot or a space: stripped, so the name is stable.
  return (ext ? cut + ext : stripEnd(cut)) || fallback;
}

const stripEnd = (s: string) => s.replace(/[\s.]+$/, '');

/** UTF-8 bytes of one code point; a lone surrogate counts as the 3 of its replacement U+FFFD. */
const utf8Bytes = (cp: number) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);

function utf8Length(s: string): number {
  let bytes = 0;
  for (const ch of s) bytes += utf8Bytes(ch.codePointAt(0)!);
  return bytes;
}

/** How many UTF-16 units of `s` fit in `max` UTF-8 bytes without splitting a code point. */
function utf8Prefix(s: string, max: number): number {
  let bytes = 0;
  let end = 0;
  for (const ch of s) {
    bytes += utf8Bytes(ch.codePointAt(0)!);
    if (bytes > max) break;
    end += ch.length;
  }
  return end;
}

/**
 * How a multipart part's header carries `"`, CR and LF in a name: percent-encoded, as browsers
 * send them (WHATWG's form encoding). The encoding leaves `%` alone, so a name that holds `%22`
 * itself reads back as a quote: a sender that wants its name kept sends it decoded already.
 */
export const encodeFormName = (name: string) =>
  name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
export const decodeFormName = (name: string) =>
  name.replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
