/**
 * A dry run's plan for programs, whole, in the format asked for: a list of rows in an envelope
 * with the summary as its trailer, so `-o json` is `{"rows": […], "summary": …}` (`-o yaml` the
 * same in YAML), `-o ndjson` one object per row then `{"summary": …}`, and the tabular formats
 * one line per change (`line,key,action,id,field,from,to,error`; a row that changes nothing is
 * one line too).
 */
import { Writable } from 'node:stream';
import type { PlannedRow } from '../../../../import/planned.js';
import type { Summary } from '../../../../import/types.js';
import type { IO } from '../../../context.js';
import { write } from '../../../output/formats/formatter.js';
import { type Format, forPeople, listWriter, type View } from '../../../output/render.js';

export interface PlanWriter {
  write(row: PlannedRow): Promise<void>;
  end(summary: Summary): Promise<void>;
}

/** One line of the tabular form: a row and one of its changes. */
interface ChangeLine {
  row: PlannedRow;
  field?: string;
}

const LINE_COLUMNS = [
  { header: 'line', value: (l: ChangeLine) => l.row.line },
  { header: 'key', value: (l: ChangeLine) => l.row.key },
  { header: 'action', value: (l: ChangeLine) => l.row.action },
  { header: 'id', value: (l: ChangeLine) => l.row.id },
  { header: 'field', value: (l: ChangeLine) => l.field },
  { header: 'from', value: (l: ChangeLine) => (l.field ? l.row.changes![l.field]!.from : '') },
  { header: 'to', value: (l: ChangeLine) => (l.field ? l.row.changes![l.field]!.to : '') },
  { header: 'error', value: (l: ChangeLine) => l.row.error },
];

/** What is gathered before a write to stdout (one write per row cost a syscall per row). */
const BATCH = 64 * 1024;

/**
 * An IO whose stdout gathers the plan's text and passes it on in batches; `end` passes on the
 * rest. Waiting for the real stdout to drain holds the writes back, so memory stays bounded.
 */
function batching(io: IO): { io: IO; end(): Promise<void> } {
  let pending = '';
  const flush = () => {
    const text = pending;
    pending = '';
    return text ? write(io, text) : Promise.resolve();
  };
  const stdout = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      pending += chunk;
      if (pending.length < BATCH) done();
      else flush().then(() => done(), done);
    },
  });
  return {
    io: { ...io, stdout },
    end: async () => {
      await new Promise<void>((resolve) => stdout.end(resolve));
      await flush();
    },
  };
}

/** A row's tabular lines: one per change, or one for a row that changes nothing. */
function linesOf(row: PlannedRow): ChangeLine[] {
  const fields = Object.keys(row.changes ?? {});
  return fields.length === 0 ? [{ row }] : fields.map((field) => ({ row, field }));
}

/** The writer for this format; undefined for a person's (their view is format.ts's). */
export async function planWriter(io: IO, format: Format): Promise<PlanWriter | undefined> {
  if (forPeople(format)) return undefined;
  const batch = batching(io);
  const view: View<PlannedRow, ChangeLine> = {
    format,
    columns: LINE_COLUMNS,
    json: (row) => row,
    lines: linesOf,
  };
  // Streamed, so a 100,000-row plan is never held whole.
  const out = await listWriter(batch.io, view, { key: 'rows' });
  return {
    write: (row) => out.write(row),
    end: async (summary) => {
      await out.end({ summary });
      await batch.end();
    },
  };
}
