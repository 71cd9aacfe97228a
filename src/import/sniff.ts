/**
 * What an import's input is, by its first bytes and never by its name: a zip (an .xlsx
 * workbook, judged further by xlsx-guard.ts) or text (CSV). An OLE2 compound file is a legacy
 * .xls or an encrypted (password-protected) .xlsx, told apart by its directory's stream names;
 * an HTML page (what some HR systems and "Save as Web Page" call .xls) and a PDF are refused.
 */
import { open } from 'node:fs/promises';
import { importUsageError } from './errors.js';

export type InputKind = 'xlsx' | 'csv';

const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const EMPTY_ZIP = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const CFB = Buffer.from('d0cf11e0a1b11ae1', 'hex');
const utf16 = (s: string) => Buffer.from(s, 'utf16le');

async function head(file: string, length: number): Promise<Buffer> {
  const fd = await open(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fd.read(buf, 0, length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fd.close();
  }
}

/** The input's kind, or a usage error naming what the file is and what to do. */
export async function inputKind(file: string): Promise<InputKind> {
  const bytes = await head(file, 8192);
  if (bytes.subarray(0, 4).equals(ZIP)) return 'xlsx';
  if (bytes.subarray(0, 4).equals(EMPTY_ZIP)) {
    throw importUsageError(`${file} is an empty zip archive, not a workbook or a CSV file`);
  }
  if (bytes.subarray(0, 8).equals(CFB)) {
    // Stream names in the first directory sectors: EncryptionInfo/EncryptedPackage (an
    // encrypted OOXML workbook), Workbook/Book (BIFF8/BIFF5, Excel 97-2003).
    if (bytes.includes(utf16('EncryptedPackage')) || bytes.includes(utf16('EncryptionInfo'))) {
      throw importUsageError(
        `${file} is a password-protected (encrypted) workbook: open it in Excel, remove the password (File > Info > Protect Workbook > Encrypt with Password, empty), save it as .xlsx and import that (or save it as CSV)`,
      );
    }
    throw importUsageError(
      `${file} is a legacy Excel 97-2003 workbook (.xls, BIFF), which Roster does not read: open it in Excel or LibreOffice and save it as .xlsx or CSV`,
    );
  }
  const text = bytes
    .toString('latin1')
    .replace(/^\ufeff|^\xef\xbb\xbf/, '')
    .trimStart();
  if (
    /^<(!doctype\s+html|html|table|\?xml[^>]*>\s*(<\?mso-application[^>]*>\s*)?<(html|workbook))/i.test(
      text,
    )
  ) {
    throw importUsageError(
      `${file} is an HTML page (or Excel 2003 XML), not a workbook or a CSV file, whatever its name says: open it in Excel and save it as .xlsx or CSV`,
    );
  }
  if (text.startsWith('%PDF-')) {
    throw importUsageError(
      `${file} is a PDF, not a workbook or a CSV file: export the data as .xlsx or CSV`,
    );
  }
  return 'csv';
}
