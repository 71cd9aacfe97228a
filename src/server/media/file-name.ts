/**
 * The stored name of an upload: the part's file name without directories, control or bidi
 * characters, at most 255 UTF-8 bytes with its extension kept. It becomes the last segment of
 * the publicID and of CDN paths, so it can never be empty, `.` or `..`.
 */

const MAX_BYTES = 255;
/** C0/C1 controls and DEL, plus the bidi overrides that make `gpj.exe` look like `exe.jpg`. */
const UNWANTED = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** Cuts `s` to at most `max` UTF-8 bytes without splitting a character. */
function cutBytes(s: string, max: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > max) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/**
 * @param raw the name the client sent (undefined when none)
 * @param format the sniffed format, used for the fallback name (`file.png`)
 */
export function sanitizeFileName(raw: string | undefined, format: string): string {
  let name = (raw ?? '').normalize('NFC');
  name = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  name = name.replace(UNWANTED, '').trim();
  // Windows drops trailing dots and spaces; a name of only dots is a path trick.
  name = name.replace(/[. ]+$/, '');
  if (name === '') return format && format !== 'bin' ? `file.${format}` : 'file';
  if (Buffer.byteLength(name) <= MAX_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  return (
    cutBytes(name.slice(0, name.length - ext.length), MAX_BYTES - Buffer.byteLength(ext)) + ext
  );
}
