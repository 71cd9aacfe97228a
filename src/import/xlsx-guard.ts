/**
 * What a workbook must pass before its sheet is read (docs/decisions.md, "xlsx"). The reader
 * (xlsx-sheet.ts) inflates each part it needs and parses it with saxes (which never fetches an
 * external entity, but takes a DOCTYPE) and keeps every shared string in memory. So, from the zip's central
 * directory: at most MAX_ENTRIES entries, no encrypted or unknown-method entry, no part larger
 * than MAX_PART (shared strings: MAX_SHARED_STRINGS), MAX_TOTAL in all, and no large part that
 * compresses better than MAX_RATIO (a zip bomb). Then every entry is inflated once here, in
 * chunks, counting: more bytes than the directory declared stops at once. Every XML part is
 * searched for a DOCTYPE (refused: no DTD of any kind), and the sheets for merged cells; the
 * workbook's sheet list is read on the way. Memory stays a few chunks; time is one inflate.
 */
import { createReadStream } from 'node:fs';
import { createInflateRaw } from 'node:zlib';
import { ImportError, importUsageError } from './errors.js';
import { dataOffset, readZipDirectory, type ZipEntry, ZipFormatError } from './zip-directory.js';

export const LIMITS = {
  entries: 10_000,
  /** A sheet of Excel's 1,048,576 rows of a dozen filled columns is ~600 MiB of XML. */
  part: 1024 * 2 ** 20,
  sharedStrings: 64 * 2 ** 20,
  total: 2048 * 2 ** 20,
  /** Parts beyond `ratioFrom` bytes that inflate more than this many times their size. */
  ratio: 200,
  ratioFrom: 2 ** 20,
  /** workbook.xml and its rels are read into memory. */
  small: 8 * 2 ** 20,
  merges: 10_000,
};

export interface SheetInfo {
  name: string;
  /** visible, hidden or veryHidden */
  state: string;
  sheetId: number;
  /** The worksheet part's number (xl/worksheets/sheet<N>.xml), or undefined (a chart sheet). */
  partNo?: string;
}

export interface WorkbookInfo {
  sheets: SheetInfo[];
  /** Merged ranges (`C1:D1`) per worksheet part number. */
  merges: Map<string, string[]>;
  date1904: boolean;
  /** The zip's directory: where the reader finds each part. */
  entries: ZipEntry[];
}

const SHEET_PART = /^xl\/worksheets\/sheet(\d+)\.xml$/;
const DOCTYPE = Buffer.from('<!DOCTYPE');
const ENTITY = Buffer.from('<!ENTITY');
const MERGE = /<(?:\w+:)?mergeCell\s[^>]*?ref="([A-Z]{1,3}\d+(?::[A-Z]{1,3}\d+)?)"/g;
const XML = /\.(xml|rels|vml)$/i;

const mib = (n: number) => (n >= 2 ** 20 ? `${Math.round(n / 2 ** 20)} MiB` : `${n} bytes`);

function refuse(file: string, why: string) {
  return importUsageError(
    `${file}: ${why}; refused before reading it. Open it in Excel and save it again as .xlsx (or as CSV)`,
  );
}

/** The checks that need only the directory. */
function judgeDirectory(file: string, entries: ZipEntry[]) {
  let total = 0;
  for (const e of entries) {
    if (e.flags & 1) {
      throw importUsageError(
        `${file} is password-protected (an encrypted zip entry, ${e.name}): remove the password in Excel (File > Info > Protect Workbook) and save it again, or save it as CSV`,
      );
    }
    if (e.method !== 0 && e.method !== 8) {
      throw refuse(file, `${e.name} is compressed with method ${e.method}, which Excel never uses`);
    }
    const cap = e.name === 'xl/sharedStrings.xml' ? LIMITS.sharedStrings : LIMITS.part;
    if (e.uncompressed > cap) {
      throw refuse(file, `${e.name} inflates to ${mib(e.uncompressed)} (at most ${mib(cap)})`);
    }
    if (e.uncompressed >= LIMITS.ratioFrom && e.uncompressed > LIMITS.ratio * e.compressed) {
      throw refuse(
        file,
        `${e.name} inflates ${Math.round(e.uncompressed / Math.max(1, e.compressed))} times (${mib(e.uncompressed)}), a zip bomb's ratio`,
      );
    }
    total += e.uncompressed;
  }
  if (total > LIMITS.total) {
    throw refuse(file, `its parts inflate to ${mib(total)} in all (at most ${mib(LIMITS.total)})`);
  }
  if (!entries.some((e) => e.name === 'xl/workbook.xml')) {
    const ods = entries.some((e) => e.name === 'mimetype' || e.name === 'content.xml');
    throw importUsageError(
      ods
        ? `${file} is an OpenDocument spreadsheet (LibreOffice .ods), not an .xlsx workbook: save it as .xlsx or CSV`
        : `${file} is a zip archive but not an Excel workbook (it has no xl/workbook.xml): import an .xlsx or CSV file`,
    );
  }
}

/** Inflates one entry in chunks; `onChunk` sees each with the tail of the one before. */
async function inflate(
  file: string,
  entry: ZipEntry,
  onChunk: (window: Buffer, fresh: number) => void,
): Promise<void> {
  if (entry.compressed === 0) return;
  const start = await dataOffset(file, entry);
  const raw = createReadStream(file, { start, end: start + entry.compressed - 1 });
  const source = entry.method === 8 ? raw.pipe(createInflateRaw()) : raw;
  raw.on('error', (err) => source.destroy(err));
  let seen = 0;
  let tail = Buffer.alloc(0);
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      seen += chunk.length;
      if (seen > entry.uncompressed) {
        throw refuse(
          file,
          `${entry.name} inflates to more than the ${entry.uncompressed} bytes its directory declares (a zip bomb)`,
        );
      }
      const window = tail.length > 0 ? Buffer.concat([tail, chunk]) : chunk;
      onChunk(window, chunk.length);
      tail = Buffer.from(window.subarray(Math.max(0, window.length - 256)));
    }
  } finally {
    raw.destroy();
    source.destroy();
  }
}

const decodeXml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (e[0] !== '#') return named[e.toLowerCase()]!;
    return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });

const attributes = (tag: string) =>
  new Map(
    [...tag.matchAll(/([\w:.-]+)\s*=\s*"([^"]*)"/g)].map(
      (m) => [m[1]!.replace(/^\w+:(?!id$)/, ''), decodeXml(m[2]!)] as const,
    ),
  );

/** The workbook's sheets in tab order, from workbook.xml and its rels. */
function sheetsOf(workbook: string, rels: string): { sheets: SheetInfo[]; date1904: boolean } {
  const targets = new Map<string, string>();
  for (const m of rels.matchAll(/<(?:\w+:)?Relationship\b[^>]*>/g)) {
    const a = attributes(m[0]);
    if (a.has('Id') && a.has('Target')) targets.set(a.get('Id')!, a.get('Target')!);
  }
  const sheets: SheetInfo[] = [];
  for (const m of workbook.matchAll(/<(?:\w+:)?sheet\b[^>]*>/g)) {
    const a = attributes(m[0]);
    const rid = a.get('r:id') ?? a.get('id') ?? '';
    const target = targets.get(rid) ?? '';
    const part = /(?:^|\/)worksheets\/sheet(\d+)\.xml$/.exec(target)?.[1];
    sheets.push({
      name: a.get('name') ?? '',
      state: a.get('state') ?? 'visible',
      sheetId: Number(a.get('sheetId')),
      partNo: part,
    });
  }
  const pr = /<(?:\w+:)?workbookPr\b[^>]*>/.exec(workbook);
  const date1904 = pr ? /^(1|true)$/.test(attributes(pr[0]).get('date1904') ?? '') : false;
  return { sheets, date1904 };
}

/** Checks a workbook as described above; its sheets, merged ranges and date system. */
export async function checkWorkbook(file: string): Promise<WorkbookInfo> {
  let entries: ZipEntry[];
  try {
    entries = await readZipDirectory(file, LIMITS.entries);
  } catch (err) {
    if (err instanceof ZipFormatError)
      throw refuse(file, `not a readable zip archive: ${err.message}`);
    throw err;
  }
  judgeDirectory(file, entries);
  const merges = new Map<string, string[]>();
  const kept: Record<string, Buffer[]> = {};
  try {
    for (const entry of entries) {
      if (!XML.test(entry.name)) continue;
      const part = SHEET_PART.exec(entry.name)?.[1];
      const keep = entry.name === 'xl/workbook.xml' || entry.name === 'xl/_rels/workbook.xml.rels';
      if (keep && entry.uncompressed > LIMITS.small) {
        throw refuse(file, `${entry.name} is ${mib(entry.uncompressed)}`);
      }
      const found = new Set<string>();
      let first = true;
      await inflate(file, entry, (window, fresh) => {
        if (first && (window[0] === 0xff || window[0] === 0xfe || window[1] === 0)) {
          throw refuse(file, `${entry.name} is not UTF-8 XML`);
        }
        first = false;
        if (window.indexOf(DOCTYPE) >= 0 || window.indexOf(ENTITY) >= 0) {
          throw importUsageError(
            `${file}: ${entry.name} has a DOCTYPE (a DTD, the way XML external entities come in): refused, nothing read from it or fetched. Excel never writes one; save the data again from Excel or export it as CSV`,
          );
        }
        if (keep) {
          const parts = kept[entry.name] ?? [];
          parts.push(Buffer.from(window.subarray(window.length - fresh)));
          kept[entry.name] = parts;
        }
        if (part !== undefined && window.indexOf('mergeCell') >= 0) {
          for (const m of window.toString('latin1').matchAll(MERGE)) found.add(m[1]!);
          if (found.size > LIMITS.merges)
            throw refuse(file, `${entry.name} has too many merged cells`);
        }
      });
      if (part !== undefined && found.size > 0) merges.set(part, [...found]);
    }
  } catch (err) {
    if (err instanceof ImportError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('Z_')) {
      throw refuse(file, `a damaged zip entry (${(err as Error).message})`);
    }
    throw err;
  }
  const text = (name: string) => Buffer.concat(kept[name] ?? []).toString('utf8');
  const { sheets, date1904 } = sheetsOf(
    text('xl/workbook.xml'),
    text('xl/_rels/workbook.xml.rels'),
  );
  if (sheets.length === 0) throw refuse(file, 'its workbook lists no sheets');
  return { sheets, merges, date1904, entries };
}
