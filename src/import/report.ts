/**
 * The `--report` CSV, one line per row as it completes, written straight to the file
 * descriptor (no buffer in this process), so a run killed with -9 leaves every finished row on
 * disk; and its reading back for `--resume`.
 */
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  type Stats,
  writeSync,
} from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import {
  DestinationError,
  destinationError,
  openFresh,
  writeWholeSync,
} from '../files/destination.js';
import { ImportError, noSuchReport } from './errors.js';
import { changesText, type PlannedRow } from './planned.js';
import type { Action } from './types.js';

export const REPORT_COLUMNS = [
  'row',
  'line',
  'key',
  'action',
  'id',
  'status',
  'error',
  'invitation',
] as const;

/** The columns of reports written before the invitation column: still resumed, and appended to. */
const OLD_COLUMNS = REPORT_COLUMNS.slice(0, 7).join(',');

export interface ReportLine {
  row?: number;
  line?: number;
  key?: string;
  action: Action;
  id?: string;
  /** ok / failed after a change was tried; `planned` in a --dry-run report. */
  status: 'ok' | 'failed' | 'planned';
  error?: string;
  /** A create that asked the service to invite the new user (`queued`: not yet delivered). */
  invited?: true;
  /** A dry run's report: what the row would change (its `changes` column). */
  changes?: PlannedRow['changes'];
}

/** A row an earlier run finished, as its report says. */
export interface DoneRow {
  key: string;
  action: Action;
  id: string;
}

function firstLine(fd: number): string {
  const head = Buffer.alloc(256);
  const n = readSync(fd, head, 0, head.length, 0);
  return head.subarray(0, n).toString('utf8').split(/\r?\n/)[0]!.trim();
}

/** Where the file's last whole line ends (0: it has none), read back from its end. */
function endOfLastLine(fd: number, size: number): number {
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    readSync(fd, chunk, 0, end - start, start);
    const at = chunk.subarray(0, end - start).lastIndexOf(0x0a);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}

/** What a name that is not a regular file is, in words. */
function kindOf(s: Stats): string {
  if (s.isSymbolicLink()) return 'a symbolic link';
  if (s.isFIFO()) return 'a named pipe';
  if (s.isSocket()) return 'a socket';
  return 'a device';
}

export class ReportWriter {
  private constructor(
    private readonly fd: number,
    readonly path: string,
    /** Appending to a report of the old columns: its lines keep them. */
    private readonly old: boolean,
    /** A dry run's plan: one more column, the changes each row would make. */
    private readonly plan: boolean,
    /** Continues an earlier run's report (--resume): its retried rows have lines of before. */
    private readonly continued: boolean,
  ) {}

  /**
   * Opens (append: continues the report of the run being resumed) and writes the header when
   * the report is new. A new report is made beside and renamed into place (0600); a name that is
   * not a regular file (a symlink planted in a shared directory, a directory, a pipe) is refused,
   * the resumed report too, and that one is opened without following a link.
   */
  static open(path: string, append = false, plan = false): ReportWriter {
    const found = lstatSync(path, { throwIfNoEntry: false });
    if (found && !found.isFile()) {
      // A directory is refused as every destination refuses one; anything else by what it is.
      throw new DestinationError(
        path,
        found.isDirectory()
          ? 'it is a directory; give a file name'
          : `it is ${kindOf(found)}, not a regular file, and a report is never written through one; name another file (or remove it)`,
      );
    }
    const header = stringify([[...REPORT_COLUMNS, ...(plan ? ['changes'] : [])]]);
    if (!append || !found)
      return new ReportWriter(openFresh(path, header), path, false, plan, false);
    let fd: number | undefined;
    try {
      const { O_RDWR, O_APPEND, O_NOFOLLOW } = constants;
      fd = openSync(path, O_RDWR | O_APPEND | O_NOFOLLOW);
      // A line a kill cut short goes: its row is not done (readDone drops it too), and kept, it
      // would be a line of its own that names a row.
      let size = fstatSync(fd).size;
      const whole = size > 0 ? endOfLastLine(fd, size) : 0;
      if (whole < size) ftruncateSync(fd, whole);
      size = whole;
      const old = size > 0 && firstLine(fd) === OLD_COLUMNS;
      if (size === 0) writeSync(fd, header);
      return new ReportWriter(fd, path, old, plan, size > 0);
    } catch (err) {
      if (fd !== undefined) closeSync(fd);
      throw destinationError(path, err);
    }
  }

  write(l: ReportLine) {
    const cells = [
      l.row ?? '',
      l.line ?? '',
      l.key ?? '',
      l.action,
      l.id ?? '',
      l.status,
      l.error ?? '',
    ];
    if (!this.old) cells.push(l.invited ? 'queued' : '');
    if (this.plan) cells.push(changesText(l.changes));
    // A report grows line by line so a resumed run can read it; a line that cannot be written
    // (the disk filled) stops the run with the report's name, and resume drops a half line.
    try {
      writeSync(this.fd, stringify([cells]));
    } catch (err) {
      throw destinationError(this.path, err);
    }
  }

  /**
   * Ends the report. A continued one then holds each row once, as it ended: the line an earlier
   * run wrote for a row this run tried again (it had failed) gives way to this run's.
   */
  close() {
    fsyncSync(this.fd);
    closeSync(this.fd);
    if (this.continued) compact(this.path);
  }
}

/**
 * Rewrites a report (into place, whole or not at all) with one line per row: the last written
 * for it, where the row first appeared. Lines without a row number (deactivations of users the
 * file no longer has) are told apart by key and action.
 */
function compact(path: string) {
  try {
    // Swapped for something else during the run (a link, a pipe): left alone, not read through.
    if (!lstatSync(path).isFile()) return;
    const [header, ...lines] = parse(readFileSync(path, 'utf8'), {
      relax_column_count: true,
      skip_empty_lines: true,
    }) as string[][];
    const last = new Map<string, string[]>();
    lines.forEach((cells, i) => {
      const [row, , key, action, , status] = cells;
      const whole = status === 'ok' || status === 'failed';
      last.set(
        whole && row ? `row ${row}` : whole && key ? `${action} ${key}` : `line ${i}`,
        cells,
      );
    });
    if (header && last.size < lines.length) {
      writeWholeSync(path, stringify([header, ...last.values()]), { mode: 0o600, durable: true });
    }
  } catch {
    // Not compacted (the disk filled, say): the report as written is whole, and resumes alike.
  }
}

/** The rows a report marks done (status ok), by row number. */
export function readDone(path: string): Map<number, DoneRow> {
  if (!existsSync(path)) throw noSuchReport(path);
  let text = readFileSync(path, 'utf8');
  // A run killed mid-write may leave half a line: drop it, that row is simply not done.
  if (!text.endsWith('\n')) text = text.slice(0, text.lastIndexOf('\n') + 1);
  // The header first: rows become objects keyed by it, so only Roster's own columns may.
  const header = text.slice(0, text.indexOf('\n')).trim();
  if (header !== REPORT_COLUMNS.join(',') && header !== OLD_COLUMNS) {
    throw new ImportError(
      `--resume ${path}: not a roster import report (its header should be ${REPORT_COLUMNS.join(',')})`,
    );
  }
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: true, relax_column_count: true, skip_empty_lines: true });
  } catch (err) {
    throw new ImportError(`--resume ${path}: not a readable report (${(err as Error).message})`);
  }
  const done = new Map<number, DoneRow>();
  for (const r of records) {
    const row = Number(r.row);
    if (r.status === 'ok' && Number.isInteger(row) && row > 0 && r.key) {
      done.set(row, { key: r.key, action: r.action as Action, id: r.id ?? '' });
    }
  }
  return done;
}
