/**
 * Streaming CSV reading: file checks, decoding (decode.ts), preamble lines (Excel's `sep=;`,
 * `--skip-lines`, a preset's own such as the Entra template's `version:v1.0`), delimiter
 * detection among `,` `;` and tab, and csv-parse — with the line each record starts on, so every later message can
 * point at the file's line (quoted fields may span lines; CRLF and LF both work).
 */
import { constants, createReadStream } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { type CsvError, type Info, parse } from 'csv-parse';
import { type DecodeOptions, decodeText } from './decode.js';
import { ImportError, importUsageError } from './errors.js';
import { inputKind } from './sniff.js';
import type { SheetOptions } from './xlsx-read.js';

export const DELIMITERS = [',', ';', '\t'] as const;

/** One data row: `row` counts data rows from 1 (the header is row 0), `line` is the file's line. */
export interface CsvRecord {
  row: number;
  line: number;
  fields: string[];
  /** Why the row cannot be read at all (a workbook's formula without a value): an error row. */
  problem?: string;
}

export interface CsvFile {
  file: string;
  header: string[];
  delimiter: string;
  /** The file's size when opened. */
  bytes: number;
  records: AsyncGenerator<CsvRecord>;
}

export interface ReadOptions extends Omit<DecodeOptions, 'file'>, SheetOptions {
  /** An explicit delimiter; without it a `sep=` first line, else the header line decides. */
  delimiter?: string;
  /** Lines before the header to skip (after a `sep=` line). */
  skipLines?: number;
  /** Lines of this form before the header are skipped when present (a preset's preamble). */
  preamble?: RegExp;
}

/** Excel's first line naming the delimiter ("sep=;"); it may carry the delimiter after it. */
const SEP_LINE = /^"?sep=(.)"?[,;\t]*$/i;

/** The most frequent of `,` `;` tab outside quotes in the header line; `,` when none. */
export function detectDelimiter(headerLine: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best = ',';
  for (const [d, n] of counts) if (n > counts.get(best)!) best = d;
  return best;
}

/** The file's size, once it is known to be a file this user may read. */
export async function checkFile(file: string): Promise<number> {
  try {
    const s = await stat(file);
    if (s.isDirectory()) throw new ImportError(`${file} is a directory, not a CSV file`);
    await access(file, constants.R_OK);
    return s.size;
  } catch (err) {
    if (err instanceof ImportError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ImportError(`${file}: no such file`);
    if (code === 'EACCES' || code === 'EPERM') {
      throw new ImportError(
        `${file}: permission denied: this user may not read it (check its mode and owner)`,
      );
    }
    throw err;
  }
}

const lineBreaks = (s: string) => s.match(/\r\n|\r|\n/g)?.length ?? 0;
const crlfs = (s: string) => s.match(/\r\n/g)?.length ?? 0;

/** csv-parse's error as one actionable line. `line` is where the failing record starts. */
function csvFailure(
  file: string,
  err: CsvError,
  line: number,
  lineOfError: number,
  header?: string[],
) {
  const field = typeof err.column === 'number' ? err.column : undefined;
  const col =
    field === undefined
      ? ''
      : `, column ${field + 1}${header?.[field] ? ` (${header[field]})` : ''}`;
  switch (err.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return new ImportError(
        `${file} line ${line}${col}: a quoted field is never closed (unterminated ")`,
      );
    case 'CSV_MAX_RECORD_SIZE':
      return new ImportError(
        `${file} line ${line}: the record is larger than 1 MiB; is a quote left open?`,
      );
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'INVALID_OPENING_QUOTE':
      return new ImportError(
        `${file} line ${lineOfError}${col}: a quote (") inside a field; quote the whole field and double the inner quote ("")`,
      );
    default:
      return new ImportError(`${file} line ${lineOfError}${col}: ${err.message}`);
  }
}

async function* records(
  parser: AsyncIterable<{ record: string[]; info: Info }>,
  file: string,
  onHeader: (fields: string[]) => void,
  skipped: number,
): AsyncGenerator<CsvRecord> {
  let row = -1;
  let lastEnd = 0;
  // csv-parse counts a CRLF inside a quoted field as two lines; undo that as we go.
  let extra = 0;
  let header: string[] | undefined;
  try {
    for await (const { record, info } of parser) {
      let breaks = 0;
      for (const f of record) {
        if (f.includes('\n') || f.includes('\r')) {
          extra += crlfs(f);
          breaks += lineBreaks(f);
        }
      }
      const end = info.lines - extra + skipped;
      const line = end - breaks;
      lastEnd = end;
      if (record.every((f) => f.trim() === '')) continue; // blank line, or only delimiters
      row++;
      if (row === 0) {
        header = record;
        onHeader(record);
      } else yield { row, line, fields: record };
    }
  } catch (err) {
    const csvErr = err as CsvError & { lines?: number };
    if (csvErr.code && typeof csvErr.lines === 'number') {
      throw csvFailure(file, csvErr, lastEnd + 1, csvErr.lines - extra + skipped, header);
    }
    throw err;
  }
}

/** CSV-only options given for a workbook, and the reverse: refused, naming the flag. */
function checkOptions(file: string, kind: 'xlsx' | 'csv', opts: ReadOptions) {
  const wrong =
    kind === 'xlsx'
      ? // (A workbook's own CsvFile has the delimiter '', which its second pass passes back.)
        (['encoding', 'delimiter', 'skipLines'] as const).find((k) => (opts[k] ?? '') !== '')
      : (['sheet', 'headerRow'] as const).find((k) => opts[k] !== undefined);
  if (!wrong) return;
  const flag = `--${wrong.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  throw importUsageError(
    kind === 'xlsx'
      ? `${flag} is for CSV files, and ${file} is an .xlsx workbook${wrong === 'skipLines' ? ': give the header row with --header-row N' : ''}`
      : `${flag} is for .xlsx workbooks, and ${file} is a CSV file${wrong === 'headerRow' ? ': skip the lines above the header with --skip-lines N' : ''}`,
  );
}

/**
 * Opens an import's input for streaming: reads up to the header, then yields data rows. Its
 * content decides what it is (sniff.ts): an .xlsx workbook's sheet (xlsx-read.ts) or CSV.
 */
export async function openCsv(file: string, opts: ReadOptions = {}): Promise<CsvFile> {
  const bytes = await checkFile(file);
  const kind = await inputKind(file);
  checkOptions(file, kind, opts);
  if (kind === 'xlsx') return (await import('./xlsx-read.js')).openXlsx(file, bytes, opts);
  const text = decodeText(createReadStream(file), { ...opts, file });
  // Peek at the first lines (preamble and header) to pick the delimiter, then replay them.
  const want = (opts.skipLines ?? 0) + (opts.preamble ? 4 : 3);
  let head = '';
  let done = false;
  while ((head.match(/\r\n|\r|\n/g)?.length ?? 0) < want && head.length < 1 << 20) {
    const next = await text.next();
    if (next.done) {
      done = true;
      break;
    }
    head += next.value;
  }
  let skipped = 0;
  let delimiter = opts.delimiter;
  const firstLine = () => {
    const m = /\r\n|\r|\n/.exec(head);
    return m ? { line: head.slice(0, m.index), next: m.index + m[0].length } : undefined;
  };
  const drop = () => {
    const first = firstLine();
    if (!first) return false;
    head = head.slice(first.next);
    skipped++;
    return true;
  };
  const sep = SEP_LINE.exec(firstLine()?.line ?? '');
  if (sep) {
    delimiter ??= sep[1];
    drop();
  }
  for (let i = 0; i < (opts.skipLines ?? 0); i++) {
    if (!drop()) {
      throw new ImportError(
        `${file}: --skip-lines ${opts.skipLines} skips the whole file (it has ${skipped} lines)`,
      );
    }
  }
  while (opts.preamble?.test(firstLine()?.line ?? '') && drop());
  delimiter ??= detectDelimiter(firstLine()?.line ?? head);
  async function* replay() {
    if (head) yield Buffer.from(head);
    if (!done) for await (const t of text) yield Buffer.from(t);
    // A file read whole while peeking: let the header record out before the parser ends (and
    // fails on an unterminated quote), so its error can name the column.
    else await new Promise((resolve) => setImmediate(resolve));
  }
  const source = Readable.from(replay(), { objectMode: false });
  const parser = parse({
    delimiter,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    info: true,
    max_record_size: 1 << 20,
  });
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);

  let header: string[] | undefined;
  const rows = records(
    parser,
    file,
    (h) => {
      header = h;
    },
    skipped,
  );
  // Pull the header now, so an empty file fails before anything else happens.
  const first = await rows.next();
  if (!header) {
    throw new ImportError(
      `${file} is empty: expected a header row such as 'externalId,email,firstName,lastName' (see \`roster users import --template\`)`,
    );
  }
  async function* all(): AsyncGenerator<CsvRecord> {
    if (!first.done) yield first.value;
    yield* rows;
  }
  return { file, header: header.map((h) => h.trim()), delimiter, bytes, records: all() };
}
