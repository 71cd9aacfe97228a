/** The stored name of an upload (contract `safeFileName`), or `file.<format>` when none is left. */
import { decodeFormName, safeFileName } from '../../contract/file-name.js';

/**
 * @param raw the name the client sent (undefined when none)
 * @param format the sniffed format, used for the fallback name (`file.png`)
 */
export function sanitizeFileName(raw: string | undefined, format: string): string {
  // busboy hands the name on as it came: percent-encoded where browsers and the CLI encode.
  return safeFileName(decodeFormName(raw ?? ''), {
    fallback: format && format !== 'bin' ? `file.${format}` : 'file',
  });
}

/**
 * The name an upload keeps once stored in another format than it came in (a HEIC stripped of
 * its metadata is a JPEG): its extension is the new format's, `IMG_1.HEIC` → `IMG_1.jpg`.
 */
export function renamedFor(raw: string | undefined, from: string, to: string): string | undefined {
  if (raw === undefined || from === to) return raw;
  return raw.replace(/\.[A-Za-z0-9]{1,10}$/, `.${to}`);
}
