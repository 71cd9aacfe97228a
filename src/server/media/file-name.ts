/** The stored name of an upload (contract `safeFileName`), or `file.<format>` when none is left. */
import { safeFileName } from '../../contract/file-name.js';

/**
 * @param raw the name the client sent (undefined when none)
 * @param format the sniffed format, used for the fallback name (`file.png`)
 */
export function sanitizeFileName(raw: string | undefined, format: string): string {
  // Browsers (WHATWG's form encoding) and the CLI send `"`, CR and LF in a part's file name
  // percent-encoded, and busboy hands them on as they came.
  const sent = (raw ?? '').replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
  return safeFileName(sent, {
    fallback: format && format !== 'bin' ? `file.${format}` : 'file',
  });
}
