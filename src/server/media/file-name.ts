/** The stored name of an upload (contract `safeFileName`), or `file.<format>` when none is left. */
import { safeFileName } from '../../contract/file-name.js';

/**
 * @param raw the name the client sent (undefined when none)
 * @param format the sniffed format, used for the fallback name (`file.png`)
 */
export function sanitizeFileName(raw: string | undefined, format: string): string {
  return safeFileName(raw ?? '', {
    fallback: format && format !== 'bin' ? `file.${format}` : 'file',
  });
}
