/**
 * What a workbook must pass before its sheet is read (docs/decisions.md, "Spreadsheets"). The
 * reader (xlsx-sheet.ts) inflates each part it needs and parses it with saxes (which never
 * fetches an external entity, but takes a DOCTYPE) and keeps every shared string in memory. So,
 * from the zip's central directory: at most MAX_ENTRIES entries, no encrypted or unknown-method
 * entry, no part larger than MAX_PART (shared strings: MAX_SHARED_STRINGS), MAX_TOTAL in all,
 * and no large part that compresses better than MAX_RATIO (a zip bomb). Every part is inflated
 * through inflateEntry, here and by the reader alike: more bytes than the directory declared
 * stop it at once, and a DOCTYPE (no DTD of any kind) or a part that is not UTF-8 is refused.
 * checkWorkbook inflates the small parts (the workbook's sheet list is read on the way) but
 * neither the worksheets nor the shared strings: the reader streams those through the same
 * checks, and never reads a sheet it was not asked for. The sheet to read is scanned once ahead
 * by sheetMerges (merged cells sit at the end of its XML, and a merged header must be refused
 * before the first row). Memory stays a few chunks; time is one inflate of each part read.
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
  date1904: boolean;
  /** The zip's directory: where the reader finds each part. */
  entries: ZipEntry[];
}

/** The parts the reader streams through inflateEntry itself: never inflated ahead here. */
const STREAMED = /^xl\/(?:worksheets\/sheet\d+|sharedStrings)\.xml$/;
const DOCTYPE = Buffer.from('<!DOCTYPE');
const ENTITY = Buffer.from('<!ENTITY');
const MERGE = /<(?:\w+:)?mergeCell\s[^>]*?ref="([A-Z]{1,3}\d+(?::[A-Z]{1,3}\d+)?)"/g;
const XML = /\.(xml|rels|vml)$/i;

/**
 * Inflated in chunks this large: node:zlib's 16 KiB default took 3× as long to inflate a 27 MB
 * sheet; beyond 64 KiB more rows of a chunk outlive a scavenge (bench/HISTORY.md, "Spreadsheets").
 */
const CHUNK = 64 * 1024;
/** What of a chunk's neighbour is searched with it: more than any element looked for. */
const SEAM = 256;

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

/**
 * One entry's bytes, inflated in chunks; more than the directory declares is refused at once
 * (a zip bomb that lies), and so is a first chunk that is not UTF-8 XML. `signal` stops it
 * (another part read beside it failed).
 */
export async function* inflateEntry(
  file: string,
  entry: ZipEntry,
  signal?: AbortSignal,
): AsyncGenerator<Buffer> {
  if (entry.compressed === 0) return;
  const start = await dataOffset(file, entry);
  const raw = createReadStream(file, {
    start,
    end: start + entry.compressed - 1,
    highWaterMark: CHUNK,
  });
  const source = entry.method === 8 ? raw.pipe(createInflateRaw({ chunkSize: CHUNK })) : raw;
  raw.on('error', (err) => source.destroy(err));
  let seen = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      if (seen === 0 && (chunk[0] === 0xff || chunk[0] === 0xfe || chunk[1] === 0)) {
        throw refuse(file, `${entry.name} is not UTF-8 XML`);
      }
      seen += chunk.length;
      if (seen > entry.uncompressed) {
        throw refuse(
          file,
          `${entry.name} inflates to more than the ${entry.uncompressed} bytes its directory declares (a zip bomb)`,
        );
      }
      yield chunk;
    }
  } catch (err) {
    throw damaged(file, err);
  } finally {
    raw.destroy();
    source.destroy();
  }
}

/** A zlib error as the damaged entry it is; anything else as it was. */
function damaged(file: string, err: unknown) {
  const code = (err as NodeJS.ErrnoException).code;
  if (!(err instanceof ImportError) && typeof code === 'string' && code.startsWith('Z_')) {
    return refuse(file, `a damaged zip entry (${(err as Error).message})`);
  }
  return err;
}

/** The refusal of a part with a DOCTYPE, wherever it is met (here, or by the reader's parser). */
export const doctypeRefusal = (file: string, entry: ZipEntry) =>
  importUsageError(
    `${file}: ${entry.name} has a DOCTYPE (a DTD, the way XML external entities come in): refused, nothing read from it or fetched. Excel never writes one; save the data again from Excel or export it as CSV`,
  );

/**
 * Inflates one entry, refusing a DOCTYPE (also one split across two chunks); `onChunk` gets each
 * chunk, the seam (the end of the one before and its own start) and, on demand, the chunk with
 * the tail of the one before (copied only then).
 */
async function scan(
  file: string,
  entry: ZipEntry,
  onChunk: (chunk: Buffer, seam: Buffer, window: () => Buffer) => void,
  signal?: AbortSignal,
) {
  let tail = Buffer.alloc(0);
  for await (const chunk of inflateEntry(file, entry, signal)) {
    const seam = Buffer.concat([tail, chunk.subarray(0, SEAM)]);
    for (const marker of [DOCTYPE, ENTITY]) {
      if (chunk.indexOf(marker) >= 0 || seam.indexOf(marker) >= 0) {
        throw doctypeRefusal(file, entry);
      }
    }
    const before = tail;
    onChunk(chunk, seam, () => (before.length > 0 ? Buffer.concat([before, chunk]) : chunk));
    tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - SEAM)));
  }
}

/** The merged ranges (`C1:D1`) of a worksheet part, scanned ahead of its rows. */
export async function sheetMerges(
  file: string,
  entry: ZipEntry,
  signal?: AbortSignal,
): Promise<string[]> {
  const found = new Set<string>();
  const onChunk = (chunk: Buffer, seam: Buffer, window: () => Buffer) => {
    // A mergeCell element split across two chunks is whole in the window.
    if (chunk.indexOf('mergeCell') < 0 && seam.indexOf('mergeCell') < 0) return;
    for (const m of window().toString('latin1').matchAll(MERGE)) found.add(m[1]!);
    if (found.size > LIMITS.merges) throw refuse(file, `${entry.name} has too many merged cells`);
  };
  await scan(file, entry, onChunk, signal);
  return [...found];
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

/** Checks a workbook as described above; its sheets and date system. */
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
  const kept = new Map<string, Buffer[]>();
  for (const entry of entries) {
    if (!XML.test(entry.name) || STREAMED.test(entry.name)) continue;
    const keep = entry.name === 'xl/workbook.xml' || entry.name === 'xl/_rels/workbook.xml.rels';
    if (keep && entry.uncompressed > LIMITS.small) {
      throw refuse(file, `${entry.name} is ${mib(entry.uncompressed)}`);
    }
    const parts: Buffer[] = [];
    await scan(file, entry, (chunk) => {
      if (keep) parts.push(Buffer.from(chunk));
    });
    if (keep) kept.set(entry.name, parts);
  }
  const text = (name: string) => Buffer.concat(kept.get(name) ?? []).toString('utf8');
  const { sheets, date1904 } = sheetsOf(
    text('xl/workbook.xml'),
    text('xl/_rels/workbook.xml.rels'),
  );
  if (sheets.length === 0) throw refuse(file, 'its workbook lists no sheets');
  return { sheets, date1904, entries };
}
